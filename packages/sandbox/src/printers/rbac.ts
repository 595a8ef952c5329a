// `kubectl get serviceaccounts`, `roles`, `clusterroles`, `rolebindings` and
// `clusterrolebindings`: printers.go, printServiceAccount, printRole,
// printClusterRole, printRoleBinding and printClusterRoleBinding, with the
// subjects split as pkg/apis/rbac/helpers.go SubjectsStrings splits them.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import { translateTimestampSince } from './duration.js';
import {
  ageColumn,
  column,
  creationTimestampDescription,
  nameColumn,
  type Printer,
} from './printer.js';

/** ServiceAccounts: Name, Secrets (how many it lists), Age. */
export const serviceAccountPrinter: Printer = {
  columns: [
    nameColumn,
    column('Secrets', 'integer', 'Secrets the service account may use.'),
    ageColumn,
  ],
  print: (obj: KubeObject, now: number) => {
    const sa = obj as ServiceAccount;
    return {
      cells: [
        sa.metadata?.name ?? '',
        (sa.secrets ?? []).length,
        translateTimestampSince(sa.metadata?.creationTimestamp, now),
      ],
    };
  },
};

/**
 * Roles and ClusterRoles: Name and Created At, the creation time in RFC 3339
 * (a `date` column, not an age).
 */
export const rolePrinter: Printer = {
  columns: [nameColumn, column('Created At', 'date', creationTimestampDescription)],
  print: (obj: KubeObject) => ({
    cells: [obj.metadata?.name ?? '', obj.metadata?.creationTimestamp ?? ''],
  }),
};

/** SubjectsStrings: users, groups and service accounts (`namespace/name`). */
function subjectsStrings(subjects: readonly Subject[]): {
  users: string[];
  groups: string[];
  serviceAccounts: string[];
} {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const s of subjects) {
    if (s.kind === 'User') out.users.push(s.name);
    else if (s.kind === 'Group') out.groups.push(s.name);
    else if (s.kind === 'ServiceAccount')
      out.serviceAccounts.push(s.namespace ? `${s.namespace}/${s.name}` : s.name);
  }
  return out;
}

/**
 * RoleBindings and ClusterRoleBindings: Name, Role (`Kind/name`), Age; wide:
 * Users, Groups, ServiceAccounts, each joined with `, `.
 */
export const roleBindingPrinter: Printer = {
  columns: [
    nameColumn,
    column('Role', 'string', 'The role the binding grants.'),
    ageColumn,
    column('Users', 'string', 'Users in the roleBinding', 1),
    column('Groups', 'string', 'Groups in the roleBinding', 1),
    column('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding', 1),
  ],
  print: (obj: KubeObject, now: number) => {
    const b = obj as RoleBinding;
    const { users, groups, serviceAccounts } = subjectsStrings(b.subjects ?? []);
    return {
      cells: [
        b.metadata?.name ?? '',
        `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}`,
        translateTimestampSince(b.metadata?.creationTimestamp, now),
        users.join(', '),
        groups.join(', '),
        serviceAccounts.join(', '),
      ],
    };
  },
};
