// outputscheck.mjs: DuckDB's view of fleetsim's other notebook outputs.
//
// Usage: node outputscheck.mjs RUN_DIR SWEEP_DIR ANALYSIS_SQL
//
// 1. RUN_DIR/timeseries.parquet: the documented columns; per-interval
//    arrivals add up to summary.json's (fleet: requests, and post-warm-up
//    arrived; every pool: arrived); the same footer as requests.parquet,
//    whose columns are REQUIRED except the seven times that can be NULL.
// 2. SWEEP_DIR/sweep.parquet: created_by and key-value metadata (version,
//    seed, base scenario JSON, axes JSON); NULL, not '' or 0, for gpu,
//    max_ctx and slots in fleet rows, and none in pool rows.
// 3. Every statement of ANALYSIS_SQL (examples/notebook/analysis.sql), with
//    its paths 'out/' and 'sweep/' pointed at RUN_DIR and SWEEP_DIR, runs
//    and returns rows.
// Exits 1 on any failure.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [runDir, sweepDir, sqlFile] = process.argv.slice(2);
if (!sqlFile) {
  console.error('usage: node outputscheck.mjs RUN_DIR SWEEP_DIR ANALYSIS_SQL');
  process.exit(2);
}
const q = (p) => p.replaceAll("'", "''");
const num = (v) => (typeof v === 'bigint' ? Number(v) : Number(v ?? 0));
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const rows = async (sql) => (await conn.runAndReadAll(sql)).getRowObjects();
const failures = [];

// 1. The time series.
const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
const ts = q(join(runDir, 'timeseries.parquet'));
const req = q(join(runDir, 'requests.parquet'));
const tsCols = ['interval', 'interval_start_s', 'interval_end_s', 'pool', 'pool_index', 'arrivals', 'warmup_arrivals',
  'completions', 'rejections', 'queue', 'running', 'slots', 'kv_blocks_used', 'kv_blocks_total', 'ttft_p50_s', 'ttft_p99_s',
  'rate_rps', 'tpot_p99_s', 'slo_attainment', 'instances_starting', 'instances_serving', 'instances_draining',
  'b_short', 'osd_alert', 'gpu_hours', 'cost_usd'];
const got = (await rows(`DESCRIBE SELECT * FROM read_parquet('${ts}')`)).map((r) => String(r.column_name));
if (JSON.stringify(got) !== JSON.stringify(tsCols)) failures.push(`timeseries columns ${JSON.stringify(got)}, docs/report.md: ${JSON.stringify(tsCols)}`);
const sums = await rows(`SELECT pool, sum(arrivals)::BIGINT AS a, sum(arrivals - warmup_arrivals)::BIGINT AS post,
  count(*) FILTER (WHERE kv_blocks_used > kv_blocks_total)::BIGINT AS over
  FROM read_parquet('${ts}') GROUP BY pool`);
const by = Object.fromEntries(sums.map((r) => [String(r.pool), r]));
if (num(by.fleet?.a) !== summary.requests) failures.push(`timeseries: fleet arrivals ${num(by.fleet?.a)}, summary requests ${summary.requests}`);
if (num(by.fleet?.post) !== summary.fleet.arrived) failures.push(`timeseries: fleet post-warm-up arrivals ${num(by.fleet?.post)}, summary arrived ${summary.fleet.arrived}`);
for (const p of summary.pools) {
  if (num(by[p.name]?.post) !== p.arrived) failures.push(`timeseries: pool ${p.name} post-warm-up arrivals ${num(by[p.name]?.post)}, summary ${p.arrived}`);
}
for (const r of sums) if (num(r.over) > 0) failures.push(`timeseries: pool ${r.pool}: ${num(r.over)} intervals with more KV blocks used than exist`);
const footer = async (f) => JSON.stringify(await rows(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${f}') ORDER BY k`));
if (await footer(ts) !== await footer(req)) failures.push('timeseries.parquet key-value metadata differs from requests.parquet');
const [tfm] = await rows(`SELECT created_by FROM parquet_file_metadata('${ts}')`);
if (String(tfm.created_by) !== `fleetsim version ${summary.version}`) failures.push(`timeseries created_by ${tfm.created_by}`);

// requests.parquet: a column is REQUIRED unless it can be NULL (the seven
// times a rejected request never reaches).
const optional = ['admit_s', 'first_token_s', 'finish_s', 'queue_wait_s', 'ttft_s', 'tpot_s', 'e2e_s'];
for (const r of await rows(`SELECT name, repetition_type AS rt FROM parquet_schema('${req}') WHERE num_children IS NULL OR num_children = 0`)) {
  const want = optional.includes(String(r.name)) ? 'OPTIONAL' : 'REQUIRED';
  if (String(r.rt) !== want) failures.push(`requests.parquet column ${r.name}: ${r.rt}, want ${want}`);
}

// 2. The sweep.
const sw = q(join(sweepDir, 'sweep.parquet'));
const [sfm] = await rows(`SELECT created_by FROM parquet_file_metadata('${sw}')`);
if (!String(sfm.created_by).startsWith('fleetsim version ')) failures.push(`sweep created_by ${JSON.stringify(sfm.created_by)}`);
const kv = Object.fromEntries((await rows(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${sw}')`)).map((r) => [String(r.k), String(r.v)]));
if (`fleetsim version ${kv['fleetsim.version']}` !== String(sfm.created_by)) failures.push(`sweep fleetsim.version ${kv['fleetsim.version']} vs created_by ${sfm.created_by}`);
if (!/^\d+$/.test(kv['fleetsim.seed'] ?? '')) failures.push(`sweep fleetsim.seed ${kv['fleetsim.seed']}`);
for (const k of ['fleetsim.scenario', 'fleetsim.axes']) {
  try { JSON.parse(kv[k]); } catch { failures.push(`sweep ${k} is not JSON: ${kv[k]}`); }
}
const [n] = await rows(`SELECT
  count(*) FILTER (WHERE fleet AND (gpu IS NOT NULL OR max_ctx IS NOT NULL OR slots IS NOT NULL))::BIGINT AS fleet_values,
  count(*) FILTER (WHERE NOT fleet AND (gpu IS NULL OR max_ctx IS NULL OR slots IS NULL))::BIGINT AS pool_nulls,
  count(*) FILTER (WHERE gpu = '' OR max_ctx = 0 OR slots = 0)::BIGINT AS stand_ins,
  count(*) FILTER (WHERE fleet)::BIGINT AS fleet_rows
  FROM read_parquet('${sw}')`);
if (num(n.fleet_rows) === 0) failures.push('sweep: no fleet row');
if (num(n.fleet_values) > 0) failures.push(`sweep: ${num(n.fleet_values)} fleet rows with a gpu, max_ctx or slots value (want NULL)`);
if (num(n.pool_nulls) > 0) failures.push(`sweep: ${num(n.pool_nulls)} pool rows with a NULL gpu, max_ctx or slots`);
if (num(n.stand_ins) > 0) failures.push(`sweep: ${num(n.stand_ins)} rows with '' or 0 stand-ins`);

// 3. The notebook's DuckDB analysis.
const sql = readFileSync(sqlFile, 'utf8').split('\n').filter((l) => !l.trimStart().startsWith('--')).join('\n');
const stmts = sql.split(/;\s*(?:\n|$)/).map((s) => s.trim()).filter(Boolean);
let ran = 0;
for (const s of stmts) {
  const t = s.replaceAll("'out/", `'${q(runDir)}/`).replaceAll("'sweep/", `'${q(sweepDir)}/`);
  try {
    const r = await rows(t);
    if (r.length === 0) failures.push(`analysis.sql statement ${ran + 1} returned no row`);
  } catch (e) {
    failures.push(`analysis.sql statement ${ran + 1}: ${e.message}`);
  }
  ran++;
}

conn.closeSync?.();
if (failures.length > 0) {
  for (const f of failures) console.error(`outputscheck: MISMATCH ${f}`);
  process.exit(1);
}
console.log(`outputscheck: OK timeseries.parquet adds up to summary.json (${summary.requests} arrivals), ` +
  `sweep.parquet metadata and NULLs as documented, ${ran} statements of ${sqlFile} run`);
