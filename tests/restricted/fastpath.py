"""A restricted analyst's fast-path function calls (the protocol's 'F' message, libpq's PQfn): a
function run by OID without parsing or planning.  Usage: fastpath.py <host> <port> <user>
<password> <database> <function signature> <relation>; prints the outcome of calling the
function on the relation's OID (its result, or the error's SQLSTATE and message)."""
import sys
sys.path.insert(0, __import__('os').path.join(__import__('os').path.dirname(__file__), '..', 'security'))
import pgwire

host, port, user, password, db, fn, rel = sys.argv[1:8]
# the OIDs are looked up by the analyst itself: a restricted role may read the catalog
c = pgwire.Conn(host, int(port), user, db, password)
fn_oid = int(c.scalar("SELECT '%s'::regprocedure::oid" % fn))
rel_oid = c.scalar("SELECT '%s'::regclass::oid" % rel)
kind, value = c.function_call(fn_oid, [rel_oid])
print('%s: %s' % (kind, value))
c.close()
