import { DEFAULT_TIMEOUT_MS, DEFAULT_URL, helpText, intOption, parseCommandLine } from './args';
import { CliError } from './errors';

const parse = (argv: string[], env: Record<string, string> = {}) => parseCommandLine(argv, env);

function usage(fn: () => unknown): CliError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).kind).toBe('usage');
    expect((err as CliError).exitCode).toBe(2);
    return err as CliError;
  }
  throw new Error('expected a usage error');
}

describe('parseCommandLine', () => {
  it('joins a free-text request and reads goal options', () => {
    const cmd = parse([
      'goal',
      'Create a protagonist named',
      '余归',
      '--lang',
      'zh',
      '--yes',
      '--belief',
      'a',
      '--belief',
      'b',
    ]);
    expect(cmd.command).toBe('goal');
    expect(cmd.text).toBe('Create a protagonist named 余归');
    expect(cmd.values).toMatchObject({ lang: 'zh', yes: true, belief: ['a', 'b'] });
    expect(cmd.global).toEqual({
      url: DEFAULT_URL,
      apiKey: undefined,
      json: false,
      timeoutMs: DEFAULT_TIMEOUT_MS,
    });
  });

  it('takes the gateway URL and key from the environment, flags override them', () => {
    const env = { NOVELRAG_URL: 'http://gw:9000/', NOVELRAG_API_KEY: 'k-env' };
    expect(parse(['tools'], env).global).toMatchObject({ url: 'http://gw:9000', apiKey: 'k-env' });
    expect(
      parse(['--url', 'https://x.example', 'tools', '--api-key', 'k2', '--json'], env).global,
    ).toMatchObject({
      url: 'https://x.example',
      apiKey: 'k2',
      json: true,
    });
  });

  it('finds the command after global options with values', () => {
    const cmd = parse(['--timeout', '500', 'show', 'g-1']);
    expect(cmd.command).toBe('show');
    expect(cmd.positionals).toEqual(['g-1']);
    expect(cmd.global.timeoutMs).toBe(500);
  });

  it('parses answer with its ids and mode', () => {
    const cmd = parse(['answer', 'g-1', 'i-2', '--text', 'blue']);
    expect(cmd.positionals).toEqual(['g-1', 'i-2']);
    expect(cmd.values['text']).toBe('blue');
  });

  it('parses ask: the question as free text, with its language and thread, but no confirmation answers', () => {
    const cmd = parse(['ask', 'Who is', '余归?', '--lang', 'zh', '--thread', 't-1', '--wait', '60000']);
    expect(cmd.command).toBe('ask');
    expect(cmd.text).toBe('Who is 余归?');
    expect(cmd.values).toMatchObject({ lang: 'zh', thread: 't-1', wait: '60000' });
    expect(usage(() => parse(['ask'])).message).toContain('ask takes 1+ argument(s)');
    expect(usage(() => parse(['ask', 'why?', '--yes'])).message).toContain("Unknown option '--yes'");
    expect(helpText()).toMatch(/\n {2}ask +ask the repository a question/);
  });

  it('defaults to help and accepts --help on any command', () => {
    expect(parse([]).command).toBe('help');
    expect(parse(['goal', '--help']).help).toBe(true);
    expect(helpText('answer')).toContain('novelrag answer <goalId> <interactionId>');
    expect(helpText()).toContain('exit status');
  });

  it.each([
    [['bogus'], 'unknown command "bogus"'],
    [['show'], 'show takes 1 argument(s), got 0'],
    [['show', 'a', 'b'], 'show takes 1 argument(s), got 2'],
    [['goal'], 'goal takes 1+ argument(s)'],
    [['tools', '--nope'], "Unknown option '--nope'"],
    [['tools', '--url', 'ftp://x'], 'must be http(s)'],
    [['tools', '--url', 'not a url'], 'is not a URL'],
    [['tools', '--timeout', '10'], '--timeout must be an integer from 100'],
    [['tools', '--timeout', 'soon'], '--timeout must be an integer'],
  ])('rejects %j', (argv, message) => {
    expect(usage(() => parse(argv)).message).toContain(message);
  });

  it('validates integer options', () => {
    const cmd = parse(['goals', '--limit', '20']);
    expect(intOption(cmd.values, 'limit', 1, 100)).toBe(20);
    expect(intOption(cmd.values, 'cursor', 1, 100)).toBeUndefined();
    expect(
      usage(() => intOption(parse(['goals', '--limit', '0']).values, 'limit', 1, 100)).message,
    ).toContain('--limit must be an integer from 1 to 100');
  });
});
