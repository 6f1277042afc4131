// sweepcheck.mjs: checks that the DuckDB query documented for merging the
// parts of a sharded sweep (deploy/merge-parts.sql, docs/sweep.md) gives
// exactly the rows of the unsharded sweep.
//
// Usage: node sweepcheck.mjs MERGE_SQL SHARDED_DIR WHOLE_DIR
//
// Runs the query of MERGE_SQL with its path 'sweep/parts/*.parquet'
// replaced by SHARDED_DIR/parts/*.parquet, reads WHOLE_DIR/sweep.parquet,
// and compares them row by row (same count, same order, same values; NULL
// equals NULL). Exits 1 on any difference.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [sqlFile, sharded, whole] = process.argv.slice(2);
if (!whole) {
  console.error('usage: node sweepcheck.mjs MERGE_SQL SHARDED_DIR WHOLE_DIR');
  process.exit(2);
}
const quote = (p) => p.replaceAll("'", "''");
const sql = readFileSync(sqlFile, 'utf8')
  .split('\n').filter((l) => !l.startsWith('--')).join('\n').trim().replace(/;$/, '');
const placeholder = "'sweep/parts/*.parquet'";
if (!sql.includes(placeholder)) {
  console.error(`sweepcheck: ${sqlFile} does not read ${placeholder}`);
  process.exit(1);
}
const merged = sql.replace(placeholder, `'${quote(join(sharded, 'parts', '*.parquet'))}'`);

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const a = (await conn.runAndReadAll(merged)).getRows();
const b = (await conn.runAndReadAll(`SELECT * FROM read_parquet('${quote(join(whole, 'sweep.parquet'))}')`)).getRows();
const key = (r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
const failures = [];
if (a.length !== b.length) failures.push(`rows: merged parts ${a.length}, unsharded ${b.length}`);
for (let i = 0; i < Math.min(a.length, b.length) && failures.length < 5; i++) {
  if (key(a[i]) !== key(b[i])) failures.push(`row ${i}: merged ${key(a[i])} vs unsharded ${key(b[i])}`);
}
if (a.length === 0) failures.push('no rows');
conn.closeSync?.();
if (failures.length > 0) {
  for (const f of failures) console.error(`sweepcheck: MISMATCH ${f}`);
  process.exit(1);
}
console.log(`sweepcheck: OK the documented merge query over ${sharded}/parts gives the ${a.length} rows of ${whole}/sweep.parquet, in order`);
