-- query agg0
SELECT "m0" AS "v0", "m1" AS "v1", "m2" AS "v2" FROM (SELECT count(*) AS "m0", CAST(coalesce(count_if((("a" IS NULL) OR ("s" IS NULL))), 0) AS BIGINT) AS "m1", max("a") AS "m2" FROM (SELECT "a", "s" FROM "t") AS "t1") AS "t2";

-- query rows0
SELECT * FROM (SELECT * FROM (SELECT "a", "s" FROM "t") AS "t1" WHERE (("a" IS NULL) OR ("s" IS NULL))) AS "t2" LIMIT 20;

