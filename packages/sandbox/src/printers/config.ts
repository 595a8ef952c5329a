// `kubectl get configmaps` and `kubectl get secrets`: printers.go,
// printConfigMap and printSecret.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { translateTimestampSince } from './duration.js';
import { ageColumn, column, nameColumn, type Printer } from './printer.js';

const keys = (m: Record<string, unknown> | undefined): string[] => Object.keys(m ?? {});

/** ConfigMaps: Name, Data (the number of `data` and `binaryData` keys), Age. */
export const configMapPrinter: Printer = {
  columns: [
    nameColumn,
    column('Data', 'string', 'Number of entries in data and binaryData.'),
    ageColumn,
  ],
  print: (obj: KubeObject, now: number) => {
    const cm = obj as ConfigMap;
    return {
      cells: [
        cm.metadata?.name ?? '',
        keys(cm.data).length + keys(cm.binaryData).length,
        translateTimestampSince(cm.metadata?.creationTimestamp, now),
      ],
    };
  },
};

/** Secrets: Name, Type, Data (the number of keys), Age. */
export const secretPrinter: Printer = {
  columns: [
    nameColumn,
    column('Type', 'string', 'The kind of secret, such as Opaque or kubernetes.io/tls.'),
    column('Data', 'string', 'Number of entries in data (values are base64-encoded).'),
    ageColumn,
  ],
  print: (obj: KubeObject, now: number) => {
    const secret = obj as Secret;
    // The internal Secret has merged stringData into data by the time it prints.
    const dataKeys = new Set([...keys(secret.data), ...keys(secret.stringData)]);
    return {
      cells: [
        secret.metadata?.name ?? '',
        secret.type ?? '',
        dataKeys.size,
        translateTimestampSince(secret.metadata?.creationTimestamp, now),
      ],
    };
  },
};
