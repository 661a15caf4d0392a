import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

/** A zip opened for random access: its entries by name, and a stream of any entry's content. */
export interface ZipArchive {
  entries: Map<string, yauzl.Entry>;
  open(name: string): Promise<Readable>;
  close(): void;
}

/**
 * Reads the central directory. yauzl refuses absolute and `..` names and checks each entry's
 * size while decompressing, so a damaged or hostile archive fails here or when read.
 */
export async function openZip(file: string): Promise<ZipArchive> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (error, opened) =>
      error ? reject(error) : resolve(opened),
    ),
  );
  const entries = new Map<string, yauzl.Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entries.has(entry.fileName)) {
        reject(new Error(`the archive holds ${entry.fileName} twice`));
        return;
      }
      if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve());
    zip.once('error', reject);
    zip.readEntry();
  }).catch((error: unknown) => {
    zip.close();
    throw error;
  });
  return {
    entries,
    open(name) {
      const entry = entries.get(name);
      if (!entry) return Promise.reject(new Error(`the archive has no ${name}`));
      return new Promise((resolve, reject) =>
        zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))),
      );
    },
    close: () => zip.close(),
  };
}
