import type Database from 'better-sqlite3';

/**
 * Statements of one SQLite connection by their SQL, prepared once: compiling a statement costs
 * more than running a small one, and the same few run on every request. Bounded, since SQL with
 * a list of parameters differs with the list's length.
 */
export class PreparedStatements {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly limit = 500,
  ) {}

  get(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size >= this.limit) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Forgets them all: after a schema change, SQLite would prepare each again anyway. */
  clear(): void {
    this.statements.clear();
  }
}
