-- pipeline
-- on s3://demo/enriched/{partition}.json
-- $min_minutes (int) = 0
-- DuckDB: one row per day and kind into the data table main.daily_rollup.
ATTACH 'datatable://main' AS dt;
CREATE TABLE IF NOT EXISTS dt.daily_rollup (day VARCHAR, kind VARCHAR, events BIGINT, minutes BIGINT);
DELETE FROM dt.daily_rollup WHERE day = '{partition}';
INSERT INTO dt.daily_rollup
SELECT day, kind, count(*), sum(minutes)
FROM read_json('s3://demo/enriched/{partition}.json')
WHERE minutes >= $min_minutes
GROUP BY day, kind;
SELECT kind, events, minutes FROM dt.daily_rollup WHERE day = '{partition}' ORDER BY kind;
