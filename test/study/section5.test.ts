import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { classLiteralsOfSection5, extractSection5 } from '../../pipeline/study/section5.ts';

const doc = [
  '# Plan',
  '',
  '## 4. Key',
  'text',
  '',
  '## 5. Analysis plan',
  '',
  '```sql',
  'CREATE VIEW a AS SELECT 1;',
  '```',
  '',
  '```text',
  '## not a heading inside a fence',
  '```',
  '',
  '### 5.1 Sub-section stays inside',
  '```sql',
  'CREATE VIEW b AS SELECT 2;',
  '```',
  '',
  '## 6. Hypotheses',
  'after',
  '',
].join('\n');

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('section 5', () => {
  it('runs from its heading to the next level-2 heading, ignoring headings inside fences', () => {
    const s5 = extractSection5(doc)!;
    expect(s5.text.startsWith('## 5. Analysis plan\n')).toBe(true);
    expect(s5.text.endsWith('```\n\n')).toBe(true);
    expect(s5.text).toContain('## not a heading inside a fence');
    expect(s5.text).not.toContain('## 6.');
    expect(s5.sha256).toBe(sha(s5.text));
    expect(s5.sqlBlocks.map((b) => b.sql)).toEqual(['CREATE VIEW a AS SELECT 1;', 'CREATE VIEW b AS SELECT 2;']);
    expect(s5.sqlBlocks[0]!.line).toBe(9);
  });

  it('normalises CRLF so the digest does not depend on the checkout', () => {
    expect(extractSection5(doc.replace(/\n/g, '\r\n'))!.sha256).toBe(extractSection5(doc)!.sha256);
  });

  it('changes digest on any byte inside section 5, not outside it', () => {
    const base = extractSection5(doc)!.sha256;
    expect(extractSection5(doc.replace('SELECT 1', 'SELECT 2'))!.sha256).not.toBe(base);
    expect(extractSection5(doc.replace('after', 'later'))!.sha256).toBe(base);
    expect(extractSection5(doc.replace('## 4. Key\ntext', '## 4. Key\nother text'))!.sha256).toBe(base);
  });

  it('runs to the end of the file when it is the last section', () => {
    const s5 = extractSection5('## 5 Plan\n```sql\nSELECT 1;\n```\n')!;
    expect(s5.text).toBe('## 5 Plan\n```sql\nSELECT 1;\n```\n');
  });

  it('is absent when no level-2 heading starts with 5 (## 50 and ### 5 do not count)', () => {
    expect(extractSection5('## 50 Other\n### 5 Deep\n')).toBeNull();
    expect(extractSection5('# 5 Title\n')).toBeNull();
  });
});

describe('the class literals of section 5 (what the freeze checks against study.json classes)', () => {
  const blocks = (sql: string) => ({ sqlBlocks: [{ sql, line: 10 }] });
  it('takes the literals of the statements assertion_classes is made from, transitively, with their lines; not those of other views, nor compared ones', () => {
    const sql = [
      "CREATE MACRO m(x) AS CASE WHEN x IN ('SKIP_A', upper('b')) THEN 'FROM_MACRO' ELSE 'OTHER' END;",
      "CREATE VIEW facts AS SELECT *, CASE kind WHEN 'SKIP_B' THEN 'FROM_FACTS' END AS c FROM assertions WHERE 'SKIP_C' <> kind;",
      'CREATE VIEW assertion_classes AS SELECT m(kind) AS class_declared,',
      "  'IN_VIEW' AS class_proven, 'lower_case' AS note FROM facts, t WHERE status = 'SKIP_D' -- 'COMMENTED'",
      ';',
      "CREATE VIEW hypotheses AS SELECT 'H1' AS hypothesis_id, 'SUPPORTED' AS outcome;",
      "SET VARIABLE v = 'FROM_SET';",
      "UPDATE t SET c = 'FROM_UPDATE' WHERE c = 'SKIP_E';",
    ].join('\n');
    expect(classLiteralsOfSection5(blocks(sql))).toEqual([
      { value: 'FROM_MACRO', line: 10 },
      { value: 'OTHER', line: 10 },
      { value: 'FROM_FACTS', line: 11 },
      { value: 'IN_VIEW', line: 13 },
      { value: 'FROM_SET', line: 16 },
      { value: 'FROM_UPDATE', line: 17 },
    ]);
  });
});
