import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS, keyIdOf } from '../../cli/admin.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const admin = (...args: string[]) =>
  execFileSync(process.execPath, ['--import', 'tsx', 'cli/admin.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TABLE_NAME: '' },
  });

describe('operator CLI', () => {
  it('lists exactly the commands of docs/local-stack.md', () => {
    const readme = readFileSync(`${ROOT}docs/local-stack.md`, 'utf8');
    const section = readme.slice(
      readme.indexOf('## Operator CLI'),
      readme.indexOf('\n## ', readme.indexOf('## Operator CLI') + 1),
    );
    const documented = [...section.matchAll(/^npm run admin -- (.+?)\s*$/gm)].map((match) => match[1]);
    expect(documented).toEqual(Object.values(COMMANDS).map((command) => command.synopsis));
  });

  it('answers --help with every command, without a running stack', () => {
    const help = admin('--help');
    for (const command of Object.values(COMMANDS)) expect(help).toContain(command.synopsis);
    expect(admin('help')).toBe(help);
    expect(admin()).toBe(help);
  });

  it.each(Object.entries(COMMANDS))('%s --help explains the command', (name, command) => {
    const help = admin(...name.split(' '), '--help');
    expect(help).toContain(`npm run admin -- ${command.synopsis}`);
    expect(help).toContain(command.help);
  });

  it.each([
    ['key_AbCdEfGhIjKlMnOp', 'key_AbCdEfGhIjKlMnOp'],
    ['vap_AbCdEfGhIjKlMnOp_0123456789012345678901234567890123456789', 'key_AbCdEfGhIjKlMnOp'],
  ])('key revoke takes %s', (argument, keyId) => {
    expect(keyIdOf(argument)).toBe(keyId);
  });
});
