/**
 * Node flags of `npm start` (package.json runs dist/bin/serve.js with them; a test keeps the two
 * in step, and the benchmarks start the server with them too).
 *
 * --no-allocation-site-pretenuring: V8 watches which allocation sites' objects survive young
 * collections and starts allocating those sites' objects straight in the old generation. The
 * start-up replay makes sites look long-lived, and the chatbot's indexing right after allocates
 * short-lived objects at some of them. In about one start in five, the old generation then filled
 * with garbage twenty times faster and the server holding 100,000 posts and chunks settled at
 * 584 to 677 MB instead of 337 to 395 MB; V8 keeps the pages it grew to. Nine starts with the flag
 * measured 341 to 350 MB.
 */
export const SERVE_NODE_FLAGS = ['--no-allocation-site-pretenuring'] as const;
