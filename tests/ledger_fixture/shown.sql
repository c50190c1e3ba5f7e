-- What a fixture's ledger shows (tests/ledger_fixture: make.sh writes it for the server that wrote
-- the ledger, run.sh compares it for the library of the checkout).
SELECT seq, role, database, actor, aggregate, mechanism, epsilon, delta, rho, limited, query FROM dp_ledger ORDER BY seq;
SELECT seq, event, role, actor, epsilon, delta, method, max_release_epsilon FROM dp_budget_log ORDER BY seq;
SELECT role, method, epsilon_total, delta_total, epsilon_spent, delta_spent, rho_spent, releases, has_budget FROM dp_budgets WHERE role LIKE 'analyst%' ORDER BY role;
