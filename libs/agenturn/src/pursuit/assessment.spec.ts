import { z } from 'zod';
import { PursuitAssessment } from './assessment';

const valid: PursuitAssessment = {
  finished_tasks: ['looked up the sect'],
  remaining_work_summary: 'create the character',
  required_context: 'the sect element',
  expected_actions: 'one write',
  boundary_conditions: [],
  exception_conditions: ['the name already exists'],
  success_criteria: ['the character exists and links to the sect'],
};

describe('PursuitAssessment', () => {
  it('requires all seven fields', () => {
    expect(PursuitAssessment.parse(valid)).toEqual(valid);
    const { success_criteria: _omit, ...missing } = valid;
    expect(PursuitAssessment.safeParse(missing).success).toBe(false);
  });

  it('exports a JSON schema inside the OpenAI strict subset (all properties required, nothing optional)', () => {
    const schema = z.toJSONSchema(PursuitAssessment) as {
      type: string;
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties?: boolean;
    };
    expect(schema.type).toBe('object');
    expect([...schema.required].sort()).toEqual(Object.keys(schema.properties).sort());
    expect(Object.keys(schema.properties)).toHaveLength(7);
    expect(schema.additionalProperties).toBe(false);
  });
});
