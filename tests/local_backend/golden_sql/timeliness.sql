-- query agg0
SELECT "m0" AS "v0", "m1" AS "v1", "m2" AS "v2", "m3" AS "v3", "m4" AS "v4" FROM (SELECT "m0", "m1", "m2", "__percentiles0"[1] AS "m3", "__percentiles0"[2] AS "m4" FROM (SELECT CAST(coalesce(count_if(((NOT ("b" IS NULL)) AND (NOT ("end_ts" IS NULL)))), 0) AS BIGINT) AS "m0", TRY_CAST(sum(CASE WHEN ((NOT ("b" IS NULL)) AND (NOT ("end_ts" IS NULL))) THEN TRY((CAST("end_ts" AS BIGINT) - CAST("b" AS BIGINT))) END) AS BIGINT) AS "m1", CAST(coalesce(count_if((((NOT ("b" IS NULL)) AND (NOT ("end_ts" IS NULL))) AND (TRY((CAST("end_ts" AS BIGINT) - CAST("b" AS BIGINT))) > CAST(180000 AS BIGINT)))), 0) AS BIGINT) AS "m2", quantile_disc(CASE WHEN ((NOT ("b" IS NULL)) AND (NOT ("end_ts" IS NULL))) THEN TRY((CAST("end_ts" AS BIGINT) - CAST("b" AS BIGINT))) END, [0.5, 0.95]) AS "__percentiles0" FROM (SELECT "ts", "end_ts", "b" FROM "ev") AS "t1") AS "t2") AS "t3";

-- query rows0
SELECT * FROM (SELECT * FROM (SELECT "ts" AS "ts", "end_ts" AS "end_ts", "b" AS "b", TRY((CAST("end_ts" AS BIGINT) - CAST("b" AS BIGINT))) AS "latency" FROM (SELECT * FROM (SELECT "ts", "end_ts", "b" FROM "ev") AS "t1" WHERE ((NOT ("b" IS NULL)) AND (NOT ("end_ts" IS NULL)))) AS "t2") AS "t3" WHERE ("latency" > CAST(180000 AS BIGINT))) AS "t4" LIMIT 20;

-- query rows1
SELECT * FROM (SELECT TRY_CAST(trunc(CAST((CAST("latency" AS DOUBLE) / NULLIF(CAST(CAST(120000 AS BIGINT) AS DOUBLE), 0)) AS DOUBLE)) AS BIGINT) AS "step", count(*) AS "count" FROM (SELECT "ts" AS "ts", "end_ts" AS "end_ts", "b" AS "b", TRY((CAST("end_ts" AS BIGINT) - CAST("b" AS BIGINT))) AS "latency" FROM (SELECT * FROM (SELECT "ts", "end_ts", "b" FROM "ev") AS "t1" WHERE ((NOT ("b" IS NULL)) AND (NOT ("end_ts" IS NULL)))) AS "t2") AS "t3" GROUP BY 1) AS "t4" ORDER BY "step" ASC NULLS FIRST;

