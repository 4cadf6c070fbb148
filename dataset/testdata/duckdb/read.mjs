// read.mjs FILE prints, as one JSON object, what DuckDB makes of a Parquet
// file: its rows, each column's DuckDB type and the file's key/value
// metadata. The dataset package's interop test runs it on a shard.
import { DuckDBInstance } from '@duckdb/node-api';

const file = process.argv[2];
if (!file) {
  console.error('usage: node read.mjs FILE.parquet');
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const db = await instance.connect();
const rows = await db.runAndReadAll('SELECT * FROM read_parquet($file)', { file });
const types = await db.runAndReadAll(
  'SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet($file))', { file });
const kv = await db.runAndReadAll(
  'SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata($file)', { file });
const out = {
  rows: rows.getRowObjectsJson(),
  types: Object.fromEntries(types.getRowObjectsJson().map((r) => [r.column_name, r.column_type])),
  metadata: Object.fromEntries(kv.getRowObjectsJson().map((r) => [r.key, r.value])),
};
process.stdout.write(JSON.stringify(out) + '\n');
db.closeSync();
instance.closeSync();
