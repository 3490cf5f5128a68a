-- query agg0
SELECT "m0" AS "v0" FROM (SELECT count(*) AS "m0" FROM (SELECT "k", "n" FROM "a") AS "t1") AS "t2";

-- query rows0
SELECT "__count" AS "__count", count(*) AS "__values" FROM (SELECT "k" AS "__key0", "n" AS "__key1", count(*) AS "__count" FROM (SELECT "k", "n" FROM "a") AS "t1" GROUP BY 1, 2) AS "t2" GROUP BY 1;

-- query rows1
SELECT * FROM (SELECT "__key0" AS "k", "__key1" AS "n", TRY((CAST("__count" AS BIGINT) - CAST(CAST(1 AS BIGINT) AS BIGINT))) AS "dup" FROM (SELECT * FROM (SELECT "k" AS "__key0", "n" AS "__key1", count(*) AS "__count" FROM (SELECT "k", "n" FROM "a") AS "t1" GROUP BY 1, 2) AS "t2" WHERE ("__count" > CAST(1 AS BIGINT))) AS "t3") AS "t4" LIMIT 20;

-- query rows2
SELECT "__count" AS "__count", count(*) AS "__values" FROM (SELECT "__key0" AS "__key0", "__count" AS "__count" FROM (SELECT * FROM (SELECT DISTINCT "__key0" AS "__key0" FROM (SELECT "k" AS "__key0" FROM (SELECT "k", "n" FROM "a") AS "t1") AS "t2") AS "t3" LEFT JOIN (SELECT COALESCE("k", CAST('' AS VARCHAR)) AS "__tkey0", count(*) AS "__count" FROM (SELECT "k" FROM "b") AS "t4" GROUP BY 1) AS "t5" ON (COALESCE("__key0", CAST('' AS VARCHAR)) IS NOT DISTINCT FROM "__tkey0")) AS "t6") AS "t7" GROUP BY 1;

-- query rows3
SELECT * FROM (SELECT "__key0" AS "k", TRY((CAST("__count" AS BIGINT) - CAST(CAST(1 AS BIGINT) AS BIGINT))) AS "dup" FROM (SELECT * FROM (SELECT "__key0" AS "__key0", "__count" AS "__count" FROM (SELECT * FROM (SELECT DISTINCT "__key0" AS "__key0" FROM (SELECT "k" AS "__key0" FROM (SELECT "k", "n" FROM "a") AS "t1") AS "t2") AS "t3" LEFT JOIN (SELECT COALESCE("k", CAST('' AS VARCHAR)) AS "__tkey0", count(*) AS "__count" FROM (SELECT "k" FROM "b") AS "t4" GROUP BY 1) AS "t5" ON (COALESCE("__key0", CAST('' AS VARCHAR)) IS NOT DISTINCT FROM "__tkey0")) AS "t6") AS "t7" WHERE ("__count" > CAST(1 AS BIGINT))) AS "t8") AS "t9" LIMIT 20;

