import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type Admin, type AclEntry } from 'kafkajs';

/**
 * What one service principal may do on the broker, in the catalog's terms (logical topic and group
 * names, before the namespace): read the topics it consumes with its groups, write the topics it
 * owns, and nothing else. Kafka's own ACLs are made from it by `aclsOf`.
 */
export interface KafkaAccess {
  principal: string;
  /** Topics it consumes (READ), with the consumer groups it joins (READ on the group). */
  reads: string[];
  groups: string[];
  /** Topics it produces to (WRITE). */
  writes: string[];
  /**
   * Name prefixes of topics and groups it makes, reads and removes itself (the gateway's
   * per-replica reply topics): CREATE, READ, WRITE, DESCRIBE and DELETE on the topics, READ,
   * DESCRIBE and DELETE on the groups (a replica deletes its own on a clean stop, and sweeps
   * those of crashed replicas, whose groups it describes to tell).
   */
  ownedPrefixes?: string[];
  /** Name prefixes of topics it writes without owning them (replies to the gateway). */
  writePrefixes?: string[];
  /**
   * Topics whose dead letters it sends back (a replay principal, `npm run dlq -- replay`): READ on
   * `<topic>.dlq` and on the replay's group (replayGroupOf), WRITE on `<topic>` and nothing else.
   * Unlike `reads`, no dead-letter topic of its own: a replay that fails is not dead-lettered again.
   */
  replays?: string[];
}

/** The consumer group a replay of `topic`'s dead letters keeps its place in (before the namespace). */
export function replayGroupOf(topic: string): string {
  return `dlq-replay.${topic}`;
}

/**
 * The Kafka principal that replays `topic`'s dead letters, and may write that topic only:
 * `dlq-replay-payments-commands` for payments.commands. Its password variable, as compose's .env
 * and deploy/kafka/set-service-users.sh name it, is DLQ_REPLAY_PAYMENTS_COMMANDS_KAFKA_PASSWORD.
 */
export function replayPrincipalOf(topic: string): string {
  return `dlq-replay-${topic.replaceAll('.', '-')}`;
}

export function replayPasswordVariableOf(topic: string): string {
  return `${replayPrincipalOf(topic).toUpperCase().replaceAll('-', '_')}_KAFKA_PASSWORD`;
}

export interface KafkaAclBinding {
  principal: string;
  resource: 'topic' | 'group';
  /** A name, or a prefix when `pattern` is 'prefixed'; '*' (literal) is every name. */
  name: string;
  pattern: 'literal' | 'prefixed';
  operation: 'read' | 'write' | 'describe' | 'create' | 'delete';
}

const key = (binding: KafkaAclBinding) => `${binding.principal} ${binding.resource} ${binding.pattern} ${binding.name} ${binding.operation}`;

/**
 * The ACL bindings that grant `access` in `namespace`. A consumer's dead letters go to
 * `<topic>.dlq` (see deadLetterTopicOf), so reading a topic brings writing its dead-letter
 * topic. DESCRIBE on every topic of the namespace lets a service check at boot that its topics
 * exist (metadata only, no data).
 */
export function aclsOf(access: KafkaAccess, namespace: string, deadLetterTopicOf: (topic: string) => string): KafkaAclBinding[] {
  const name = (topic: string) => (namespace ? `${namespace}.${topic}` : topic);
  const principal = `User:${access.principal}`;
  const bindings: KafkaAclBinding[] = [
    namespace
      ? { principal, resource: 'topic', name: `${namespace}.`, pattern: 'prefixed', operation: 'describe' }
      : { principal, resource: 'topic', name: '*', pattern: 'literal', operation: 'describe' },
    ...access.reads.map((topic): KafkaAclBinding => ({ principal, resource: 'topic', name: name(topic), pattern: 'literal', operation: 'read' })),
    ...access.reads.map((topic): KafkaAclBinding => ({
      principal,
      resource: 'topic',
      name: name(deadLetterTopicOf(topic)),
      pattern: 'literal',
      operation: 'write',
    })),
    ...access.groups.map((group): KafkaAclBinding => ({ principal, resource: 'group', name: name(group), pattern: 'literal', operation: 'read' })),
    ...access.writes.map((topic): KafkaAclBinding => ({ principal, resource: 'topic', name: name(topic), pattern: 'literal', operation: 'write' })),
    ...(access.writePrefixes ?? []).map((prefix): KafkaAclBinding => ({
      principal,
      resource: 'topic',
      name: name(prefix),
      pattern: 'prefixed',
      operation: 'write',
    })),
    ...(access.replays ?? []).flatMap((topic): KafkaAclBinding[] => [
      { principal, resource: 'topic', name: name(deadLetterTopicOf(topic)), pattern: 'literal', operation: 'read' },
      { principal, resource: 'group', name: name(replayGroupOf(topic)), pattern: 'literal', operation: 'read' },
      { principal, resource: 'topic', name: name(topic), pattern: 'literal', operation: 'write' },
    ]),
    ...(access.ownedPrefixes ?? []).flatMap((prefix): KafkaAclBinding[] => [
      ...(['create', 'read', 'write', 'describe', 'delete'] as const).map((operation): KafkaAclBinding => ({
        principal,
        resource: 'topic',
        name: name(prefix),
        pattern: 'prefixed',
        operation,
      })),
      ...(['read', 'describe', 'delete'] as const).map((operation): KafkaAclBinding => ({
        principal,
        resource: 'group',
        name: name(prefix),
        pattern: 'prefixed',
        operation,
      })),
    ]),
  ];
  const unique = new Map(bindings.map((binding) => [key(binding), binding]));
  return [...unique.values()];
}

const OPERATIONS = {
  read: AclOperationTypes.READ,
  write: AclOperationTypes.WRITE,
  describe: AclOperationTypes.DESCRIBE,
  create: AclOperationTypes.CREATE,
  delete: AclOperationTypes.DELETE,
} as const;
const RESOURCES = { topic: AclResourceTypes.TOPIC, group: AclResourceTypes.GROUP } as const;
const PATTERNS = { literal: ResourcePatternTypes.LITERAL, prefixed: ResourcePatternTypes.PREFIXED } as const;

const toAclEntry = (binding: KafkaAclBinding): AclEntry => ({
  principal: binding.principal,
  host: '*',
  resourceType: RESOURCES[binding.resource],
  resourceName: binding.name,
  resourcePatternType: PATTERNS[binding.pattern],
  operation: OPERATIONS[binding.operation],
  permissionType: AclPermissionTypes.ALLOW,
});

function fromAclEntry(
  principal: string,
  resource: { resourceType: number; resourceName: string; resourcePatternType: number },
  acl: { operation: number; permissionType: number; host: string },
): KafkaAclBinding | null {
  const resourceName = (Object.keys(RESOURCES) as Array<keyof typeof RESOURCES>).find((name) => RESOURCES[name] === resource.resourceType);
  const pattern = (Object.keys(PATTERNS) as Array<keyof typeof PATTERNS>).find((name) => PATTERNS[name] === resource.resourcePatternType);
  const operation = (Object.keys(OPERATIONS) as Array<keyof typeof OPERATIONS>).find((name) => OPERATIONS[name] === acl.operation);
  if (!resourceName || !pattern || !operation || acl.permissionType !== AclPermissionTypes.ALLOW || acl.host !== '*') return null;
  return { principal, resource: resourceName, name: resource.resourceName, pattern, operation };
}

/**
 * Makes the broker's ACLs for these principals exactly `wanted`: missing bindings are created, and
 * bindings of the same principals that are no longer wanted (a topic a service stopped writing)
 * are deleted, so a grant taken out of the code is taken off the broker on the next provisioning.
 * Bindings of other principals are left alone. Returns what changed.
 */
export async function reconcileAcls(admin: Admin, principals: string[], wanted: KafkaAclBinding[]): Promise<{ created: number; deleted: number }> {
  const wantedKeys = new Set(wanted.map(key));
  const present: KafkaAclBinding[] = [];
  for (const principal of principals) {
    const described = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      principal: `User:${principal}`,
      host: '*',
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    for (const resource of described.resources) {
      for (const acl of resource.acls) {
        const binding = fromAclEntry(acl.principal, resource, acl);
        // A binding this code would not make (a DENY, a host rule) was put there by hand: kept.
        if (binding) present.push(binding);
      }
    }
  }
  const presentKeys = new Set(present.map(key));
  const toCreate = wanted.filter((binding) => !presentKeys.has(key(binding)));
  const toDelete = present.filter((binding) => !wantedKeys.has(key(binding)));
  if (toCreate.length > 0) await admin.createAcls({ acl: toCreate.map(toAclEntry) });
  if (toDelete.length > 0) await admin.deleteAcls({ filters: toDelete.map(toAclEntry) });
  return { created: toCreate.length, deleted: toDelete.length };
}
