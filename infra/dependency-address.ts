/**
 * Where a dependency's variable points, fit for a start-up message: its hosts and ports alone
 * (`mongodb://user:secret@a:1,b:2/db?x=y` gives `a:1,b:2`; a broker list stays as it is). The
 * credentials, path and options stay out: the line goes to logs that more people read than
 * those who hold the secrets. Only values a driver accepted reach this, so a `?` or `#` is never
 * inside a user name or password (they must be percent-encoded there), while a raw `@` or `/`
 * may be: the hosts begin after the last `@` before the options.
 */
export function dependencyAddress(value: string): string {
  const rest = value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const beforeOptions = rest.split(/[?#]/, 1)[0];
  const hostsAndPath = beforeOptions.slice(beforeOptions.lastIndexOf('@') + 1);
  return hostsAndPath.split('/', 1)[0];
}
