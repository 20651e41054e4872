package uvl

import "github.com/nqueens/configurator/configurator/feature"

// The constraint grammar, loosest first, each operator left-associative as
// in the reference grammar: a <=> b, a => b, a | b, a & b, !a, names and
// parentheses. Each function returns the expression and its depth, which
// MaxDepth bounds (a chain of => is as deep as it is long).

func (p *parser) iff() (*feature.Expr, int) { return p.binary("<=>", p.implies, feature.Iff) }

func (p *parser) implies() (*feature.Expr, int) { return p.binary("=>", p.or, feature.Implies) }

func (p *parser) or() (*feature.Expr, int) { return p.chain("|", p.and, feature.Or) }

func (p *parser) and() (*feature.Expr, int) { return p.chain("&", p.unary, feature.And) }

// binary reads operands joined by op, left-associative: each op makes a
// node of the expression so far and the next operand.
func (p *parser) binary(op string, operand func() (*feature.Expr, int), node func(a, b *feature.Expr) *feature.Expr) (*feature.Expr, int) {
	at := p.tok
	e, d := operand()
	for p.isOp(op) {
		p.next()
		r, rd := operand()
		e, d = node(e, r), p.deeper(at, d, rd)
	}
	return e, d
}

// chain reads operands joined by op as one node of join over them all.
func (p *parser) chain(op string, operand func() (*feature.Expr, int), join func(...*feature.Expr) *feature.Expr) (*feature.Expr, int) {
	at := p.tok
	e, d := operand()
	if !p.isOp(op) {
		return e, d
	}
	args := []*feature.Expr{e}
	for p.isOp(op) {
		p.next()
		r, rd := operand()
		args, d = append(args, r), max(d, rd)
	}
	return join(args...), p.deeper(at, d, 0)
}

// deeper returns the depth of a node over operands of depths a and b,
// refusing one deeper than MaxDepth.
func (p *parser) deeper(at token, a, b int) int {
	d := max(a, b) + 1
	if d > MaxDepth {
		p.fail(feature.ErrLimit, at, "expected a constraint nested at most %d deep, found a deeper one", MaxDepth)
	}
	return d
}

// arithmetic are the operators of the numeric and string constraints.
var arithmetic = map[string]bool{"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true,
	"+": true, "-": true, "*": true, "/": true}

// aggregates are the aggregate functions' keywords.
var aggregates = map[string]bool{"sum": true, "avg": true, "len": true, "floor": true, "ceil": true}

func (p *parser) unary() (*feature.Expr, int) {
	at := p.tok
	var e *feature.Expr
	var d int
	switch {
	case p.isOp("!"):
		p.enter(at)
		p.next()
		e, d = p.unary()
		p.leave()
		return feature.Not(e), p.deeper(at, d, 0)
	case p.isOp("("):
		p.enter(at)
		p.next()
		e, d = p.iff()
		if !p.isOp(")") {
			p.expected(")")
		}
		p.next()
		p.leave()
	case p.tok.kind == tName || p.tok.kind == tQuoted:
		e = &feature.Expr{Op: feature.OpVar, Var: -1}
		p.f.refs = append(p.f.refs, ref{at: at, ids: p.reference(), expr: e})
	case p.tok.kind == tInt || p.tok.kind == tFloat:
		p.fail(feature.ErrUnsupported, at, "expected a Boolean constraint, found the number %s (numeric constraints are not Boolean)", at.text)
	case p.tok.kind == tString:
		p.fail(feature.ErrUnsupported, at, "expected a Boolean constraint, found the string '%s' (string constraints are not Boolean)", at.text)
	case p.tok.kind == tKeyword && aggregates[p.tok.text]:
		p.fail(feature.ErrUnsupported, at, "expected a Boolean constraint, found the aggregate function %s (numeric constraints are not Boolean)", at.text)
	default:
		p.expected("a feature's name, ! or (")
	}
	if p.tok.kind == tOp && arithmetic[p.tok.text] {
		p.fail(feature.ErrUnsupported, p.tok, "expected a Boolean operator (&, |, =>, <=>), found %s (arithmetic and comparisons are not Boolean)", p.tok.text)
	}
	return e, d
}
