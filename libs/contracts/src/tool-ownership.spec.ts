import { parseToolOwners, toolOwnershipProblem, toolResultsBucket } from './tool-ownership';

describe('tool ownership (one principal per tool name)', () => {
  const owners = parseToolOwners('examples=DiceRoll,WordCount; weather=Forecast');

  it('parses NOVELRAG_TOOL_OWNERS and refuses malformed, built-in or doubly admitted names', () => {
    expect(owners).toEqual({ examples: ['DiceRoll', 'WordCount'], weather: ['Forecast'] });
    expect(parseToolOwners('')).toEqual({});
    expect(() => parseToolOwners('examples')).toThrow(/not <service suffix>=<Tool>/);
    expect(() => parseToolOwners('bad.suffix=X')).toThrow(/not <service suffix>/);
    expect(() => parseToolOwners('x=ResourceWriteTool')).toThrow(/built-in/);
    expect(() => parseToolOwners('a=Same;b=Same')).toThrow(/admitted to both a and b/);
  });

  it('gives built-in names to novelrag-tools only', () => {
    expect(toolOwnershipProblem('novelrag-tools', 'ResourceWriteTool', owners)).toBeNull();
    expect(toolOwnershipProblem('novelrag-tools-examples', 'ResourceWriteTool', owners)).toMatch(
      /built-in tool/,
    );
    expect(toolOwnershipProblem('novelrag-tools-examples', 'ResourceWriteTool')).toMatch(/built-in tool/);
  });

  it('gives an admitted name to its service only, and without admissions any non-built-in name to anyone', () => {
    expect(toolOwnershipProblem('novelrag-tools-examples', 'DiceRoll', owners)).toBeNull();
    expect(toolOwnershipProblem('novelrag-tools-weather', 'DiceRoll', owners)).toBe(
      'novelrag-tools-weather is not admitted to serve DiceRoll',
    );
    expect(toolOwnershipProblem('novelrag-tools', 'DiceRoll', owners)).toMatch(
      /admitted to novelrag-tools-examples/,
    );
    expect(toolOwnershipProblem('novelrag-tools-other', 'Anything', owners)).toMatch(/not admitted/);
    expect(toolOwnershipProblem('novelrag-tools-other', 'Anything')).toBeNull();
  });

  it('names one result bucket per principal', () => {
    expect(toolResultsBucket('novelrag-tools')).toBe('tool-results');
    expect(toolResultsBucket('novelrag-tools-examples')).toBe('tool-results-examples');
    expect(toolResultsBucket('novelrag-tools-mcp-everything')).toBe('tool-results-mcp');
    expect(() => toolResultsBucket('novelrag-gateway')).toThrow(/not a tool service/);
  });
});
