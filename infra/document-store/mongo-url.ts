/** The database a MongoDB URL names when its path names none. */
export const DEFAULT_DATABASE = 'collections';

/** The database named in the URL path (`mongodb://host/name?...`), which URL cannot parse with several hosts. */
export function databaseFromUrl(url: string): string {
  const afterScheme = url.replace(/^[a-z+]+:\/\//i, '');
  const slash = afterScheme.indexOf('/');
  if (slash < 0) return DEFAULT_DATABASE;
  const name = decodeURIComponent(afterScheme.slice(slash + 1).split('?')[0]);
  return name === '' ? DEFAULT_DATABASE : name;
}

/**
 * Which database of which servers a URL names, without what may differ between the servers of
 * one deployment: credentials, options, the order of the hosts, a default port left out.
 * `mongodb://user:pw@b,a:27018/library?tls=true` is `mongodb://a:27018,b:27017/library`.
 */
export function mongoDatabaseAddress(url: string): string {
  const scheme = /^([a-z+]+):\/\//i.exec(url)?.[1]?.toLowerCase() ?? 'mongodb';
  const afterScheme = url.replace(/^[a-z+]+:\/\//i, '');
  const slash = afterScheme.indexOf('/');
  const authority = (slash < 0 ? afterScheme : afterScheme.slice(0, slash)).split('?')[0];
  const hostList = authority.slice(authority.lastIndexOf('@') + 1);
  const hosts = hostList
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== '')
    // A mongodb+srv:// host is a DNS name whose records give the ports; others default to 27017.
    .map((host) => (scheme === 'mongodb' && !/:\d+$/.test(host) ? `${host}:27017` : host))
    .sort();
  return `${scheme}://${hosts.join(',')}/${databaseFromUrl(url)}`;
}
