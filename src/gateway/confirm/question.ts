import { redactSecrets } from '../../core/util/redact.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import { isJsonObject } from '../../mcp/json-rpc.js';

/** The key of hintgate's question in an `input_required` result and in `inputResponses`. */
export const CONFIRM_INPUT_KEY = 'hintgate-confirm';

/** Arguments longer than this (as JSON) are cut in the question. */
const MAX_ARGUMENTS_SHOWN = 2_000;

/** What the person is asked about. */
export interface QuestionSubject {
  readonly server: string;
  readonly namespacedName: string;
  readonly arguments: unknown;
  /** Why: the hints that decided, with where each came from. */
  readonly reason: string;
}

/**
 * The `elicitation/create` params asking a person to approve a call: the tool, its
 * arguments (secret-looking values redacted) and why it needs approval. Accepting approves
 * (unless the `approve` box is unchecked); declining or cancelling refuses.
 */
export function confirmationQuestion(subject: QuestionSubject): JsonObject {
  let shown = JSON.stringify(redactSecrets(subject.arguments ?? {})) ?? '{}';
  if (shown.length > MAX_ARGUMENTS_SHOWN) shown = `${shown.slice(0, MAX_ARGUMENTS_SHOWN)}…`;
  return {
    mode: 'form',
    message: [
      `Approve this tool call?`,
      ``,
      `Tool: ${subject.namespacedName} (server "${subject.server}")`,
      `Arguments: ${shown}`,
      `Why it needs approval: ${subject.reason}`,
      ``,
      `Accept to run it; decline to refuse.`,
    ].join('\n'),
    requestedSchema: {
      type: 'object',
      properties: {
        approve: {
          type: 'boolean',
          title: 'Run this call',
          description: 'Leave checked and accept to run the call.',
          default: true,
        },
      },
    },
  };
}

/** A person's answer, read from an elicitation result. */
export type ConfirmationAnswer = 'approved' | 'declined' | 'cancelled';

/**
 * Reads an elicitation result: `accept` approves unless the content says `approve: false`;
 * `decline` declines; `cancel` (or anything unreadable) cancels. Undefined when there is no
 * result at all.
 */
export function answerOf(result: unknown): ConfirmationAnswer | undefined {
  if (!isJsonObject(result)) return undefined;
  switch (result['action']) {
    case 'accept': {
      const content = result['content'];
      return isJsonObject(content) && content['approve'] === false ? 'declined' : 'approved';
    }
    case 'decline':
      return 'declined';
    default:
      return 'cancelled';
  }
}
