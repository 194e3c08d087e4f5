import ts from 'typescript';

/** What the source says about one property of an exported constant: its JSDoc and, for a builder, its parameters. */
export interface PropertyDoc {
  readonly doc: string;
  readonly params: readonly string[];
  /** The exported constant a property refers to (`resources: ResourceSubjects`). */
  readonly alias?: string;
}

function jsDoc(node: ts.Node, source: ts.SourceFile): string {
  const text = source.getFullText();
  const comments = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  const last = comments.filter((c) => text.startsWith('/**', c.pos)).pop();
  if (!last) return '';
  return text
    .slice(last.pos + 3, last.end - 2)
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .filter(Boolean)
    .join(' ');
}

function unwrap(node: ts.Expression): ts.Expression {
  return ts.isAsExpression(node) || ts.isSatisfiesExpression(node) ? unwrap(node.expression) : node;
}

function collect(
  object: ts.ObjectLiteralExpression,
  prefix: string,
  source: ts.SourceFile,
  out: Map<string, PropertyDoc>,
): void {
  for (const prop of object.properties) {
    if (!ts.isPropertyAssignment(prop) || !prop.name || !ts.isIdentifier(prop.name)) continue;
    const key = `${prefix}.${prop.name.text}`;
    const init = unwrap(prop.initializer);
    const params = ts.isArrowFunction(init) || ts.isFunctionExpression(init) ? init.parameters : [];
    out.set(key, {
      doc: jsDoc(prop, source),
      params: params.map((p) => p.name.getText(source)),
      ...(ts.isIdentifier(init) ? { alias: init.text } : {}),
    });
    if (ts.isObjectLiteralExpression(init)) collect(init, key, source, out);
  }
}

/** The shape of `z.object({…})` / `z.strictObject({…})` / `z.looseObject({…})`, else the expression itself. */
function zodShape(node: ts.Expression): ts.Expression {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return node;
  const [shape] = node.arguments;
  return /^(object|strictObject|looseObject)$/.test(node.expression.name.text) && shape ? shape : node;
}

/**
 * The JSDoc of every exported constant of a TypeScript file and of its object-literal properties, by path
 * (`Subjects`, `Subjects.goalCancel`, `ResourceSubjects.find`), zod object shapes included (`ToolInvocation.deadline`).
 */
export function propertyDocs(fileName: string, text: string): Map<string, PropertyDoc> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out = new Map<string, PropertyDoc>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const decl of statement.declarationList.declarations) {
      if (!ts.isIdentifier(decl.name) || !decl.initializer) continue;
      out.set(decl.name.text, { doc: jsDoc(statement, source), params: [] });
      const init = zodShape(unwrap(decl.initializer));
      if (ts.isObjectLiteralExpression(init)) collect(init, decl.name.text, source, out);
    }
  }
  return out;
}
