import { describe, expect, it } from 'vitest';
import { accessSchema } from '../../src/config/access-schema.js';
import { configSchema } from '../../src/config/schema.js';
import { AccessControl, PrincipalDirectory } from '../../src/gateway/access.js';

const directory = new PrincipalDirectory([
  { name: 'alice', groups: ['interns'] },
  { name: 'bob', groups: ['ops'] },
]);
const control = (access: unknown) => new AccessControl(accessSchema.parse(access), directory);

const READ = { readOnlyHint: true, openWorldHint: false };
const DELETE = { readOnlyHint: false, destructiveHint: true, openWorldHint: false };
const TAG = { readOnlyHint: false, destructiveHint: false, openWorldHint: true };
const tool = (namespacedName: string, annotations: Record<string, boolean>) => ({
  server: namespacedName.split('.')[0] ?? '',
  namespacedName,
  annotations,
});

describe('access rules', () => {
  it('allows everything when there are none, and costs nothing then', () => {
    const open = control({});
    expect(open.open).toBe(true);
    expect(
      open.decide(directory.lookup('alice'), undefined, tool('gh.delete_repo', DELETE)),
    ).toMatchObject({
      allowed: true,
      by: 'access.default',
    });
  });

  it('gives interns read-only tools only, first matching rule deciding', () => {
    const rules = control({
      rules: [
        { who: ['group:interns'], effect: 'allow', annotations: { readOnly: true } },
        { who: ['group:interns'], effect: 'deny', reason: 'interns read only' },
      ],
    });
    const alice = directory.lookup('alice');
    expect(rules.decide(alice, undefined, tool('gh.list_repos', READ))).toMatchObject({
      allowed: true,
      by: 'access.rules[0]',
      readAnnotations: true,
    });
    expect(rules.decide(alice, undefined, tool('gh.delete_repo', DELETE))).toMatchObject({
      allowed: false,
      by: 'access.rules[1]',
      reason: 'interns read only',
    });
    // Not an intern: no rule names bob, the default allows.
    expect(
      rules.decide(directory.lookup('bob'), undefined, tool('gh.delete_repo', DELETE)).allowed,
    ).toBe(true);
  });

  it('matches servers, tool patterns, destructive and openWorld, and everyone with *', () => {
    const rules = control({
      default: 'deny',
      rules: [
        { who: ['*'], effect: 'deny', annotations: { destructive: true } },
        { who: ['bob'], effect: 'allow', servers: ['gh'] },
        { who: ['*'], effect: 'allow', tools: ['fs.read_*'] },
        { who: ['group:interns'], effect: 'allow', annotations: { openWorld: false } },
      ],
    });
    const bob = directory.lookup('bob');
    const alice = directory.lookup('alice');
    expect(rules.decide(bob, undefined, tool('gh.delete_repo', DELETE)).allowed).toBe(false);
    expect(rules.decide(bob, undefined, tool('gh.tag', TAG)).allowed).toBe(true);
    expect(rules.decide(alice, undefined, tool('gh.tag', TAG))).toMatchObject({
      allowed: false,
      by: 'access.default',
    });
    expect(rules.decide(alice, undefined, tool('fs.read_file', TAG)).allowed).toBe(true);
    expect(rules.decide(alice, undefined, tool('fs.readme', TAG)).allowed).toBe(false);
    expect(rules.decide(alice, undefined, tool('db.query', READ)).allowed).toBe(true);
    // Unknown principals have no groups; anonymous is a name rules can use.
    expect(
      rules.decide(directory.lookup(undefined), undefined, tool('db.query', READ)).allowed,
    ).toBe(false);
  });

  it("puts the rules of the session's toolset before the global ones", () => {
    const rules = control({
      rules: [{ who: ['*'], effect: 'allow' }],
      toolsets: { prod: [{ who: ['group:interns'], effect: 'deny' }] },
    });
    const alice = directory.lookup('alice');
    expect(rules.decide(alice, 'prod', tool('db.query', READ))).toMatchObject({
      allowed: false,
      by: 'access.toolsets.prod[0]',
    });
    expect(rules.decide(alice, 'dev', tool('db.query', READ)).allowed).toBe(true);
  });

  it('knows approvers by name or group', () => {
    const rules = control({ approvers: ['group:ops', 'carol'] });
    expect(rules.isApprover(directory.lookup('bob'))).toBe(true);
    expect(rules.isApprover(directory.lookup('alice'))).toBe(false);
    expect(rules.isApprover({ name: 'carol', groups: [] })).toBe(true);
  });

  it('remembers the groups of principals learnt from access tokens, not over configured ones', () => {
    const learnt = new PrincipalDirectory([{ name: 'bob', groups: ['ops'] }]);
    learnt.remember({ name: 'dora', groups: ['interns'] });
    learnt.remember({ name: 'bob', groups: ['admins'] });
    expect(learnt.lookup('dora').groups).toEqual(['interns']);
    expect(learnt.lookup('bob').groups).toEqual(['ops']);
    expect(learnt.lookup('zed').groups).toEqual([]);
  });

  it('says clearly what is wrong in the config', () => {
    const problems = (input: unknown) => {
      const parsed = configSchema.safeParse(input);
      return parsed.success
        ? []
        : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    };
    expect(problems({ access: { rules: [{ who: [], effect: 'allow' }] } })).toEqual([
      'access.rules.0.who: expected someone in "who"',
    ]);
    expect(problems({ access: { rules: [{ who: ['group:'], effect: 'maybe' }] } })).toEqual([
      'access.rules.0.who.0: expected a principal name, "group:<name>" or "*"',
      'access.rules.0.effect: expected allow or deny',
    ]);
    expect(
      problems({
        http: {
          tokens: [
            { name: 'a', token: 'x'.repeat(20), tokenEnv: 'A' },
            { name: 'b', tokenEnv: 'B' },
            { name: 'b', tokenEnv: 'C' },
          ],
        },
      }),
    ).toEqual([
      'http.tokens.0: expected exactly one of "token", "tokenFile" or "tokenEnv"',
      'http.tokens.2.name: principal "b" is named twice',
    ]);
  });
});
