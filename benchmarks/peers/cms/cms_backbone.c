// cms_backbone: the backbone of a CNF under decisions, from scratch, by
// CryptoMiniSat 5 (Debian's libcryptominisat5-dev), for the benchmarks.
//
// Usage: cms_backbone FILE FEATURES. FILE is a DIMACS CNF; its variables
// 1..FEATURES are the features. Each line of the standard input is one
// question: the literals of its decisions, separated by blanks. For each,
// a new solver reads the clauses and the decisions as unit clauses, finds
// one model, and then, for every feature whose value in every model found
// so far is the same, asks for a model with the other value: one shows
// every feature it gives another value free, none makes the feature
// forced (added as a unit clause). Each answer is one line of JSON:
// {"forced":[...],"calls":N,"seconds":S} (the forced literals), or
// {"unsat":true,...} when no model keeps the decisions.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cryptominisat5/cryptominisat_c.h>

static c_Lit lit(int l) {
	c_Lit x;
	x.x = (uint32_t)((abs(l) - 1) * 2 + (l < 0));
	return x;
}

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: cms_backbone FILE FEATURES\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	int features = atoi(argv[2]);
	int vars = 0, nclauses = 0;
	char line[1 << 16];
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "p cnf %d %d", &vars, &nclauses) == 2)
			break;
	}
	// lits holds every clause's literals, each clause ended by 0.
	size_t nlits = 0, cap = 1 << 20;
	int *lits = malloc(cap * sizeof *lits);
	int l;
	while (fscanf(f, "%d", &l) == 1) {
		if (nlits == cap) {
			cap *= 2;
			lits = realloc(lits, cap * sizeof *lits);
		}
		lits[nlits++] = l;
	}
	fclose(f);
	if (features > vars)
		features = vars;
	c_Lit *buf = malloc((vars + 1) * sizeof *buf);
	c_lbool *first = malloc(vars * sizeof *first);
	char *fixed = malloc(vars);
	static char q[1 << 22];
	while (fgets(q, sizeof q, stdin)) {
		double start = now();
		SATSolver *s = cmsat_new();
		cmsat_set_num_threads(s, 1);
		cmsat_new_vars(s, vars);
		size_t n = 0;
		for (size_t i = 0; i < nlits; i++) {
			if (lits[i] == 0) {
				cmsat_add_clause(s, buf, n);
				n = 0;
			} else {
				buf[n++] = lit(lits[i]);
			}
		}
		char *p = q;
		int d, used;
		while (sscanf(p, "%d%n", &d, &used) == 1) {
			p += used;
			buf[0] = lit(d);
			cmsat_add_clause(s, buf, 1);
		}
		long calls = 1;
		if (cmsat_solve(s).x != 0) { // l_True is 0
			printf("{\"unsat\":true,\"calls\":%ld,\"seconds\":%.6f}\n", calls, now() - start);
			fflush(stdout);
			cmsat_free(s);
			continue;
		}
		slice_lbool m = cmsat_get_model(s);
		memcpy(first, m.vals, vars * sizeof *first);
		memset(fixed, 0, vars); // 1: seen with both values; 2: forced
		for (int v = 0; v < features; v++) {
			if (fixed[v])
				continue;
			c_Lit a = lit(first[v].x == 0 ? -(v + 1) : v + 1);
			calls++;
			if (cmsat_solve_with_assumptions(s, &a, 1).x == 0) {
				slice_lbool m2 = cmsat_get_model(s);
				for (int w = v; w < features; w++)
					if (m2.vals[w].x != first[w].x)
						fixed[w] = 1;
			} else {
				fixed[v] = 2;
				buf[0] = lit(first[v].x == 0 ? v + 1 : -(v + 1));
				cmsat_add_clause(s, buf, 1);
			}
		}
		double took = now() - start;
		printf("{\"forced\":[");
		int comma = 0;
		for (int v = 0; v < features; v++) {
			if (fixed[v] == 2) {
				printf("%s%d", comma ? "," : "", first[v].x == 0 ? v + 1 : -(v + 1));
				comma = 1;
			}
		}
		printf("],\"calls\":%ld,\"seconds\":%.6f}\n", calls, took);
		fflush(stdout);
		cmsat_free(s);
	}
	return 0;
}
