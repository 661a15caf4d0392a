import { errorField } from './errors.js';
/** Whether a process of this host with that pid exists (signal 0 checks without sending one). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return errorField(error, 'code') === 'EPERM';
  }
}
