import type {
  AuditRecordInput,
  PinDecision,
  PinTarget,
  Store,
  ToolPin,
} from '../../store/store.js';

/**
 * A person's decision on waiting tool definitions, through whichever store the caller has
 * (the CLI's, the API's), with one audit record per decided tool. The running gateways apply
 * it from the store's `pins` event.
 */
export async function decidePins(
  store: Store,
  target: PinTarget,
  decision: PinDecision,
): Promise<ToolPin[]> {
  const decided = await store.decidePins(target, decision);
  const records = decided.map((pin): AuditRecordInput => ({
    tool: `${pin.server}.${pin.tool}`,
    namespacedName: `${pin.server}.${pin.tool}`,
    server: pin.server,
    decision: decision.action === 'approve' ? 'pin:approved' : 'pin:rejected',
    approver: decision.by,
    outcome: pin.drift?.grades.join(',') ?? 'approved',
    ...(decision.note === undefined ? {} : { error: decision.note }),
  }));
  await store.appendAudit(records);
  return decided;
}

/** `server.tool` as a pin target (the tool's name may hold dots). */
export function pinTargetOf(value: string): PinTarget | undefined {
  const dot = value.indexOf('.');
  if (dot <= 0 || dot === value.length - 1) return undefined;
  return { server: value.slice(0, dot), tool: value.slice(dot + 1) };
}
