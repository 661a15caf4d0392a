/** The cookie that carries a login session's token (see infra/session-store). */
export const SESSION_COOKIE = 'sid';
