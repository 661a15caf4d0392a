import { writeFileSync } from 'node:fs';
import { fixtureSchemaText } from '../app/fixture-schema.js';
import { appModules } from '../app/modules.js';
import { projectFile } from '../infra/project-root.js';

/** `npm run fixture-schema`: writes docs/fixture.schema.json from the importers' schemas (a test keeps the file in step). */
const file = projectFile('docs/fixture.schema.json');
writeFileSync(file, fixtureSchemaText(appModules));
console.log(`Wrote ${file}`);
