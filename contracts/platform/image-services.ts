import type { DecodeSlots } from '../../infra/images/decode-slots.js';
import type { FileStorage } from '../../infra/file-storage/port.js';

/**
 * What the platform module's media files need in one runtime, built once by its create
 * (app/modules/platform.ts) and handed to the upload route, the file and image routes, the
 * derivative worker and the CLI.
 */
export interface ImageServices {
  /** Originals, derivatives and pyramids: the `media` area of the stored files. */
  storage: FileStorage;
  /** Caps the images the image requests decode at once (the derivative jobs are capped by their queue's concurrency). */
  slots: DecodeSlots;
  /** Where rendered image requests are kept (DATA_DIR/cache/iiif): a cache, never backed up. */
  cacheDir: string;
}
