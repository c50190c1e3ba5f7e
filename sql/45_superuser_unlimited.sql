-- 50_statistics releases 200 times at delta 0.1 (quasi_gaussian) as the superuser running the
-- suite: delta 20 in all, which no budget can hold (a budget's delta is below 1).  So superusers
-- are unlimited from here on.  Releases made while unlimited still count towards the role's
-- spending, so the superuser's account stays over its budget after 50_statistics and the later
-- files run unlimited too; 70_budgets tests the limited default with a superuser of its own, and
-- 99_restore_defaults resets the setting.  dpagg.limit_superusers is PGC_SIGHUP (SET is refused):
-- ALTER SYSTEM and a reload; a connection made after the reload (\c, or the next test file)
-- sees the new value.
ALTER SYSTEM SET dpagg.limit_superusers = off;
SELECT pg_reload_conf();
\c
SHOW dpagg.limit_superusers;
