-- Restore what 45_superuser_unlimited changed (the suite may run against a server that is not
-- thrown away): superusers are limited again, as by default.
ALTER SYSTEM RESET dpagg.limit_superusers;
SELECT pg_reload_conf();
\c
SHOW dpagg.limit_superusers;
-- what ran unlimited: the releases of the superuser in 50_statistics and after
SELECT count(*) > 0 AS some_unlimited, bool_and(seq >= (SELECT min(seq) FROM dp_ledger WHERE query LIKE '%s_quasi%')) AS all_from_50_on
  FROM dp_ledger WHERE NOT limited AND role = current_user;
