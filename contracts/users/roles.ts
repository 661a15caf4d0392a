export const ROLES = ['global_admin', 'site_admin', 'editor', 'reviewer', 'author', 'researcher'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LABELS: Record<Role, string> = {
  global_admin: 'Global Administrator',
  site_admin: 'Supervisor',
  editor: 'Editor',
  reviewer: 'Reviewer',
  author: 'Author',
  researcher: 'Researcher',
};

export function isRole(value: unknown): value is Role {
  return ROLES.some((role) => role === value);
}

/** "Editor and above": editor, site_admin, global_admin. */
export function isEditorOrAbove(role: Role | null | undefined): boolean {
  return role === 'editor' || role === 'site_admin' || role === 'global_admin';
}

/** Backups are for Global Administrators and Supervisors only. */
export function isAdmin(role: Role | null | undefined): boolean {
  return role === 'site_admin' || role === 'global_admin';
}
