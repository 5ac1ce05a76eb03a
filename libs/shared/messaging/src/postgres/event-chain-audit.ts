import { anchorHash, CHAIN_GENESIS, chainHash, eventDigest, type AnchoredHead } from './event-chain';

/** What the verifier needs of a connection (a pg Client fits). */
export interface ChainReader {
  query<Row>(sql: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}

/** One thing wrong with a store's events, located as precisely as the chain and anchors allow. */
export interface ChainFinding {
  kind: 'altered' | 'missing' | 'reordered' | 'unanchored' | 'anchor';
  streamId: string | null;
  streamVersion: number | null;
  /** The stored row the finding is at (for a missing event: the row after the gap), when there is one. */
  globalPosition: string | null;
  message: string;
}

export interface ChainVerification {
  events: number;
  streams: number;
  anchors: number;
  /** At most one per stream (its first), ordered by global position, then the anchors' own. */
  findings: ChainFinding[];
}

interface StoredRow {
  global_position: string;
  stream_id: string;
  stream_version: number;
  envelope: unknown;
  hash: Buffer;
  recorded_at: Date;
}

interface AnchorHeadRow {
  day: string;
  stream_id: string;
  stream_version: number;
  hash: Buffer;
}

const BATCH = 10_000;
const dayOf = (instant: Date): string => instant.toISOString().slice(0, 10);

/**
 * Verifies a store's hash chain and anchors (docs/operations/audit.md, "Event hash chain"):
 * re-derives every event's hash from its stored envelope, stream by stream in version order, and
 * checks every anchored day against the store's events of that day. Reads the store once, in
 * batches by (stream, version), holding one stream at a time.
 *
 * - altered: the event's stored bytes no longer give its hash, or (hashes recomputed after the
 *   change) a day's anchored head no longer matches; then the event is located between the last
 *   anchored version that matched and the first that did not.
 * - missing: a version gap, an anchored head (a dropped tail) or an anchored stream (dropped
 *   whole) the store no longer has.
 * - reordered: a version whose stored event was written as its neighbour, or positions out of
 *   version order.
 * - unanchored: an event recorded on an anchored day that the day's anchor does not list.
 * - anchor: the anchors themselves no longer chain or no longer hash to their heads.
 */
export async function verifyEventChain(reader: ChainReader): Promise<ChainVerification> {
  const findings: ChainFinding[] = [];
  const anchorFindings: ChainFinding[] = [];
  const { rows: anchors } = await reader.query<{ day: string; previous_hash: Buffer | null; hash: Buffer }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, previous_hash, hash FROM event_store_anchors ORDER BY day`,
  );
  const { rows: headRows } = await reader.query<AnchorHeadRow>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, stream_id, stream_version, hash FROM event_store_anchor_heads ORDER BY day`,
  );
  const headsByDay = new Map<string, AnchoredHead[]>();
  const headsByStream = new Map<string, AnchorHeadRow[]>();
  const listOf = <Key, Item>(map: Map<Key, Item[]>, key: Key): Item[] => {
    const list = map.get(key) ?? [];
    map.set(key, list);
    return list;
  };
  for (const row of headRows) {
    listOf(headsByDay, row.day).push({ streamId: row.stream_id, streamVersion: row.stream_version, hash: row.hash });
    listOf(headsByStream, row.stream_id).push(row);
  }
  let previousAnchor: Buffer | null = null;
  for (const anchor of anchors) {
    const expected = anchorHash(anchor.day, previousAnchor, headsByDay.get(anchor.day) ?? []);
    if (!sameBytes(anchor.previous_hash, previousAnchor))
      anchorFindings.push(anchorFinding(`the anchor of ${anchor.day} does not chain to the anchor before it`));
    else if (!anchor.hash.equals(expected)) anchorFindings.push(anchorFinding(`the anchor of ${anchor.day} does not hash to the heads it lists`));
    previousAnchor = anchor.hash;
  }
  const lastAnchoredDay = anchors.length > 0 ? anchors[anchors.length - 1].day : null;

  let events = 0;
  let streams = 0;
  let stream: StoredRow[] = [];
  const verifyStream = () => {
    if (stream.length === 0) return;
    streams += 1;
    const finding = verifyOneStream(stream, headsByStream.get(stream[0].stream_id) ?? [], lastAnchoredDay);
    if (finding) findings.push(finding);
    headsByStream.delete(stream[0].stream_id);
    stream = [];
  };
  let after = { streamId: '', version: 0 };
  for (;;) {
    const { rows } = await reader.query<StoredRow>(
      `SELECT global_position, stream_id, stream_version, envelope, hash, recorded_at FROM event_store
        WHERE (stream_id, stream_version) > ($1, $2) ORDER BY stream_id, stream_version LIMIT ${BATCH}`,
      [after.streamId, after.version],
    );
    for (const row of rows) {
      if (stream.length > 0 && stream[0].stream_id !== row.stream_id) verifyStream();
      stream.push(row);
    }
    events += rows.length;
    if (rows.length < BATCH) break;
    after = { streamId: rows[rows.length - 1].stream_id, version: rows[rows.length - 1].stream_version };
  }
  verifyStream();
  // Anchored streams the store no longer has at all.
  for (const [streamId, heads] of headsByStream) {
    const last = heads[heads.length - 1];
    findings.push({
      kind: 'missing',
      streamId,
      streamVersion: 1,
      globalPosition: null,
      message: `stream ${streamId} is gone: the anchor of ${last.day} lists it at version ${last.stream_version}`,
    });
  }
  findings.sort((a, b) => (a.globalPosition === null ? 1 : b.globalPosition === null ? -1 : Number(BigInt(a.globalPosition) - BigInt(b.globalPosition))));
  return { events, streams, anchors: anchors.length, findings: [...findings, ...anchorFindings] };
}

const anchorFinding = (message: string): ChainFinding => ({ kind: 'anchor', streamId: null, streamVersion: null, globalPosition: null, message });
const sameBytes = (a: Buffer | null, b: Buffer | null): boolean => (a === null || b === null ? a === b : a.equals(b));
const at = (row: StoredRow) => `stream ${row.stream_id} version ${row.stream_version} (global position ${row.global_position})`;

/** The first thing wrong with one stream's rows (in version order), or null. */
function verifyOneStream(rows: readonly StoredRow[], anchoredHeads: readonly AnchorHeadRow[], lastAnchoredDay: string | null): ChainFinding | null {
  const streamId = rows[0].stream_id;
  const finding = (kind: ChainFinding['kind'], row: StoredRow, message: string): ChainFinding => ({
    kind,
    streamId,
    streamVersion: row.stream_version,
    globalPosition: row.global_position,
    message: `${at(row)}: ${message}`,
  });
  let previous = CHAIN_GENESIS;
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index];
    const expectedVersion = index + 1;
    if (row.stream_version !== expectedVersion) {
      const gap = row.stream_version - 1 === expectedVersion ? `version ${expectedVersion}` : `versions ${expectedVersion}-${row.stream_version - 1}`;
      return {
        kind: 'missing',
        streamId,
        streamVersion: expectedVersion,
        globalPosition: row.global_position,
        message: `stream ${streamId} ${gap} missing (before global position ${row.global_position})`,
      };
    }
    if (!chainHash(previous, eventDigest(streamId, row.stream_version, row.envelope)).equals(row.hash)) {
      const next = rows[index + 1];
      if (next && swappedWith(row, next, previous))
        return finding('reordered', row, `holds the event written as version ${next.stream_version} and the other way round (swapped)`);
      return finding('altered', row, 'its stored event no longer gives its hash (changed after it was written)');
    }
    if (index > 0 && BigInt(row.global_position) < BigInt(rows[index - 1].global_position))
      return finding('reordered', row, `was stored before version ${rows[index - 1].stream_version} (global position ${rows[index - 1].global_position})`);
    previous = row.hash;
  }
  return checkAgainstAnchors(rows, anchoredHeads, lastAnchoredDay, finding);
}

/**
 * Rows v and v+1 swapped: either their contents (each row's event digests as the other's
 * version) or the rows whole (their versions exchanged, hashes travelling with them).
 */
function swappedWith(row: StoredRow, next: StoredRow, previous: Buffer): boolean {
  const contentsSwapped = chainHash(previous, eventDigest(row.stream_id, row.stream_version, next.envelope)).equals(row.hash);
  const rowsSwapped = chainHash(next.hash, eventDigest(row.stream_id, next.stream_version, row.envelope)).equals(row.hash);
  return contentsSwapped || rowsSwapped;
}

/** The chain is whole; now each anchored day's head must be the stream's last event of that day, and every anchored day the stream changed must list it. */
function checkAgainstAnchors(
  rows: readonly StoredRow[],
  anchoredHeads: readonly AnchorHeadRow[],
  lastAnchoredDay: string | null,
  finding: (kind: ChainFinding['kind'], row: StoredRow, message: string) => ChainFinding,
): ChainFinding | null {
  const storedHeads = new Map<string, StoredRow>();
  for (const row of rows) {
    const day = dayOf(row.recorded_at);
    if (lastAnchoredDay !== null && day <= lastAnchoredDay) storedHeads.set(day, row);
  }
  let lastMatched = 0;
  for (const head of anchoredHeads) {
    const stored = storedHeads.get(head.day);
    storedHeads.delete(head.day);
    const last = rows[rows.length - 1];
    if (!stored || stored.stream_version < head.stream_version) {
      const after = rows.find((row) => row.stream_version > (stored?.stream_version ?? 0));
      const where = after ? `before global position ${after.global_position}` : `after version ${last.stream_version}, its last`;
      return {
        kind: 'missing',
        streamId: head.stream_id,
        streamVersion: (stored?.stream_version ?? 0) + 1,
        globalPosition: after?.global_position ?? null,
        message: `stream ${head.stream_id} version ${(stored?.stream_version ?? 0) + 1} missing (${where}): the anchor of ${head.day} lists the stream at version ${head.stream_version}`,
      };
    }
    if (stored.stream_version > head.stream_version)
      return finding('unanchored', stored, `recorded on ${head.day}, whose anchor lists the stream at version ${head.stream_version}`);
    if (!stored.hash.equals(head.hash))
      return finding(
        'altered',
        stored,
        `its hash is not the one the anchor of ${head.day} lists: an event in versions ${lastMatched + 1}-${head.stream_version} was changed and the hashes after it recomputed`,
      );
    lastMatched = head.stream_version;
  }
  for (const [day, row] of storedHeads) return finding('unanchored', row, `recorded on ${day}, whose anchor does not list the stream`);
  return null;
}
