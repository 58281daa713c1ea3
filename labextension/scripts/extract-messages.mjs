// Prints, as JSON, every message id passed to .__ / ._n in src/*.ts, src/hosts/*.ts,
// src/hosts/document/*.ts and src/viewer/*.ts (not tests, not generated files): the list a
// translation (ascend_lab/locale/<lang>/LC_MESSAGES/ascend_lab.po) must cover. Uses the
// TypeScript parser, so 'a' + 'b' concatenations are joined.
// Usage: node scripts/extract-messages.mjs [folder or .ts file under src ...]   (default:
// the four folders; `viewer hosts/anywidget.ts hosts/standalone.ts` gives the messages the
// bundled viewer needs, see build-viewer.mjs)
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

function literal(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
    return node.text;
  }
  if (
    ts.isBinaryExpression(node) &&
    node.operatorToken.kind === ts.SyntaxKind.PlusToken
  ) {
    const left = literal(node.left);
    const right = literal(node.right);
    return left === null || right === null ? null : left + right;
  }
  if (ts.isParenthesizedExpression(node)) {
    return literal(node.expression);
  }
  return null;
}

const folders =
  process.argv.length > 2
    ? process.argv.slice(2)
    : ['.', 'hosts', join('hosts', 'document'), 'viewer'];
const files = folders.flatMap(folder =>
  folder.endsWith('.ts')
    ? [folder]
    : readdirSync(join(src, folder))
        .filter(n => n.endsWith('.ts') && !n.endsWith('.generated.ts'))
        .sort()
        .map(n => join(folder, n))
);
const ids = new Set();
const problems = [];
for (const name of files) {
  const file = join(src, name);
  const sf = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.ES2020,
    true
  );
  const visit = node => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['__', '_n'].includes(node.expression.name.text) &&
      node.arguments.length > 0
    ) {
      const count = node.expression.name.text === '_n' ? 2 : 1;
      for (const arg of node.arguments.slice(0, count)) {
        const text = literal(arg);
        if (text === null) {
          const { line } = sf.getLineAndCharacterOfPosition(arg.getStart());
          problems.push(`${name}:${line + 1}: message id is not a string literal`);
        } else {
          ids.add(text);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(JSON.stringify([...ids].sort(), null, 1));
