// check.mjs: an independent reader of fleetsim's requests.parquet.
//
// Usage: node check.mjs OUT_DIR
//
// Opens OUT_DIR/requests.parquet with DuckDB (not with Go), checks its
// columns against the documented schema (docs/cli.md) and compares its row
// count and column sums with the numbers Go computed while streaming the
// rows, which fleetsim records in OUT_DIR/summary.json under
// outputs[kind = parquet].stats. Exits 1 on any mismatch.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The documented schema: column name -> DuckDB type.
const schema = [
  ['id', 'BIGINT'], ['pool', 'VARCHAR'], ['instance', 'INTEGER'], ['category', 'VARCHAR'],
  ['arrival_s', 'DOUBLE'], ['admit_s', 'DOUBLE'], ['first_token_s', 'DOUBLE'],
  ['finish_s', 'DOUBLE'], ['queue_wait_s', 'DOUBLE'], ['ttft_s', 'DOUBLE'],
  ['tpot_s', 'DOUBLE'], ['e2e_s', 'DOUBLE'], ['input_tokens', 'INTEGER'],
  ['output_tokens', 'INTEGER'], ['original_input_tokens', 'INTEGER'],
  ['estimated_tokens', 'INTEGER'], ['preemptions', 'INTEGER'], ['retries', 'INTEGER'],
  ['compressed', 'BOOLEAN'], ['warmup', 'BOOLEAN'], ['rejected', 'BOOLEAN'],
  ['rejected_reason', 'VARCHAR'], ['rejected_detail', 'VARCHAR'],
];

// The documented vocabulary of rejected_reason ('' when served).
const reasons = ['', 'too_long', 'misrouted', 'queue_full', 'invalid'];

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node check.mjs OUT_DIR');
  process.exit(2);
}
const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
const out = (summary.outputs || []).find((o) => o.kind === 'parquet');
if (!out || !out.stats) {
  console.error(`duckcheck: ${dir}/summary.json has no parquet output with stats`);
  process.exit(1);
}
const want = out.stats;
const file = join(dir, out.name).replaceAll("'", "''");

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const failures = [];

const desc = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).getRowObjects();
const got = desc.map((r) => [String(r.column_name), String(r.column_type)]);
if (JSON.stringify(got) !== JSON.stringify(schema)) {
  failures.push(`schema: DuckDB sees ${JSON.stringify(got)}, docs/cli.md documents ${JSON.stringify(schema)}`);
}

const [row] = (await conn.runAndReadAll(`
  SELECT count(*)::BIGINT                      AS rows,
         sum(output_tokens)::BIGINT            AS sum_output_tokens,
         sum(input_tokens)::BIGINT             AS sum_input_tokens,
         coalesce(sum(ttft_s), 0)::DOUBLE      AS sum_ttft_s,
         count(*) FILTER (WHERE rejected)::BIGINT AS rejected,
         count(*) FILTER (WHERE warmup)::BIGINT   AS warmup,
         count(*) FILTER (WHERE isnan(ttft_s) OR isnan(arrival_s))::BIGINT AS nans
  FROM read_parquet('${file}')`)).getRowObjects();

const num = (v) => (typeof v === 'bigint' ? Number(v) : Number(v ?? 0));
for (const key of ['rows', 'sum_output_tokens', 'sum_input_tokens', 'rejected', 'warmup']) {
  if (num(row[key]) !== want[key]) failures.push(`${key}: DuckDB ${num(row[key])}, Go ${want[key]}`);
}
const dt = num(row.sum_ttft_s);
const tol = 1e-9 * Math.max(1, Math.abs(want.sum_ttft_s));
if (!(Math.abs(dt - want.sum_ttft_s) <= tol)) {
  failures.push(`sum_ttft_s: DuckDB ${dt}, Go ${want.sum_ttft_s} (tolerance ${tol})`);
}
if (num(row.nans) !== 0) failures.push(`${num(row.nans)} rows hold NaN in ttft_s or arrival_s (unreached times must be NULL)`);
const seen = (await conn.runAndReadAll(`SELECT DISTINCT rejected_reason AS r FROM read_parquet('${file}')`)).getRowObjects();
for (const { r } of seen) {
  if (!reasons.includes(String(r))) failures.push(`rejected_reason ${JSON.stringify(r)} is not in the documented vocabulary ${JSON.stringify(reasons)}`);
}
// The footer says who wrote the file and for which run.
const [fm] = (await conn.runAndReadAll(`SELECT created_by FROM parquet_file_metadata('${file}')`)).getRowObjects();
if (String(fm.created_by) !== `fleetsim version ${summary.version}`) {
  failures.push(`created_by ${JSON.stringify(fm.created_by)}, want "fleetsim version ${summary.version}"`);
}
const kv = Object.fromEntries((await conn.runAndReadAll(
  `SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${file}')`)).getRowObjects().map((r) => [String(r.k), String(r.v)]));
if (kv['fleetsim.version'] !== summary.version) failures.push(`fleetsim.version ${kv['fleetsim.version']}, summary ${summary.version}`);
if (kv['fleetsim.seed'] !== String(summary.seed)) failures.push(`fleetsim.seed ${kv['fleetsim.seed']}, summary ${summary.seed}`);
if (JSON.stringify(JSON.parse(kv['fleetsim.scenario'] ?? 'null')) !== JSON.stringify(summary.config)) {
  failures.push('fleetsim.scenario differs from summary.json config');
}
if (summary.requests !== undefined && num(row.rows) !== summary.requests) {
  failures.push(`rows: DuckDB ${num(row.rows)}, summary.json requests ${summary.requests}`);
}

conn.closeSync?.();
if (failures.length > 0) {
  for (const f of failures) console.error(`duckcheck: MISMATCH ${f}`);
  process.exit(1);
}
console.log(`duckcheck: OK ${dir}/${out.name}: ${num(row.rows)} rows, ` +
  `sum(output_tokens) = ${num(row.sum_output_tokens)}, sum(ttft_s) = ${dt} ` +
  `(DuckDB and Go agree; ${schema.length} columns as documented)`);
