/** The cookie that carries a login session's token (see port.ts). */
export const SESSION_COOKIE = 'sid';
