"""Parallel workers must release under the parameters the leader charged (an attack review).

A portal of the extended protocol starts (ExecutorStart) at Bind and launches its parallel workers
at Execute.  Were each process to evaluate the parameters itself, a built-in immutable function
that reads a setting (quote_ident and quote_all_identifiers) would give the workers other values
after a SET between Bind and Execute.  dpagg freezes every non-constant parameter into the plan
before the executor starts, so:
  1a. dp_sum stays within the charged sensitivity (each row's value is >= 2, the bound is 1),
  1b. dp_sum_vector answers empty and non-empty input alike (no error on one side only).

Prints "ok N - ..." / "not ok N - ..." lines (numbered from $CHECK_BASE + 1)."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pgwire import Conn

n = int(os.environ.get('CHECK_BASE', '0'))


def check(desc, ok, detail=''):
    global n
    n += 1
    print(('ok %d - %s' if ok else 'not ok %d - %s: ' + detail) % ((n, desc) if ok else (n, desc)))


host = os.environ.get('PGHOST', 'localhost')
port = int(os.environ.get('PGPORT', '5432'))
db = os.environ.get('PGDATABASE', 'postgres')
c = Conn(host, port, 'analyst', db, password=os.environ['ANALYST_PASSWORD'], timeout=60)
for s in ("SET plan_cache_mode = force_generic_plan",   # keep $1 a Param until run time
          "SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0",
          "SET min_parallel_table_scan_size = 0", "SET max_parallel_workers_per_gather = 2",
          "SET parallel_leader_participation = off",    # every row goes through a worker
          "SET quote_all_identifiers = off"):
    c.simple(s)


def releases():
    return int(c.scalar("SELECT count(*) FROM dp_ledger WHERE role = current_user"))


def run_gap(stmt, params, between="SET quote_all_identifiers = on"):
    """Bind (the leader's ExecutorStart), run `between`, Execute (workers start); one transaction."""
    c.simple("BEGIN")
    c.simple("SET LOCAL quote_all_identifiers = off")
    c.bind('p', stmt, params)
    if between:
        c.parse('', between); c.bind('', ''); c.execute('')
    c.execute('p', 0)
    c.sync()
    ev = c.collect()
    c.simple("COMMIT")
    return ev


# 1a. length(quote_ident('a')) is 1, or 3 with quote_all_identifiers = on: bound 1 or 1.99.
B = "(1 + (length(quote_ident($1)) - 1) * 0.495::float8)"
c.parse('sum', "SELECT dp_sum(x, 1000::float8, 0::float8, 0::float8, %s, 'laplace'::text) AS s, "
               "count(*) AS n FROM atk WHERE x >= 2" % B, (25,))
plan = ' / '.join(v[0].strip() for k, v in c.simple(
    "EXPLAIN (COSTS OFF) SELECT dp_sum(x, 1000::float8, 0::float8, 0::float8, 1.0::float8, "
    "'laplace'::text) FROM atk WHERE x >= 2") if k == 'row')
check("the plan under test is a parallel partial aggregation", 'Partial Aggregate' in plan, plan)
r0 = releases()
row = [v for k, v in run_gap('sum', ('a',)) if k == 'row'][0]
s, cnt = float(row[0]), float(row[1])
check("dp_sum released within the charged sensitivity after a SET between Bind and Execute",
      abs(s - cnt) < 50, "dp_sum %s over %s rows of values >= 2 with bound 1" % (s, cnt))
check("... and charged once", releases() - r0 == 1, "%d charges" % (releases() - r0))

# 1b. dimension 1 in the leader; a worker that read 3 would make states of another shape.
D = "length(quote_ident($1))"
c.parse('vec', "SELECT dp_sum_vector(ARRAY[x], %s, 1.0::float8, 1e-6::float8, 1.0::float8, "
               "'gaussian'::text) FROM atk WHERE g = $2" % D, (25, 23))
kinds = {}
for probe, label in (('5', 'non-empty'), ('-1', 'empty')):
    r0 = releases()
    ev = run_gap('vec', ('a', probe))
    kinds[label] = ('error' if any(k == 'error' for k, v in ev) else 'value', releases() - r0)
check("dp_sum_vector answers empty and non-empty input alike, one charge each",
      kinds['empty'] == kinds['non-empty'] == ('value', 1), str(kinds))
c.close()
