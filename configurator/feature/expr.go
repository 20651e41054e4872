package feature

import (
	"fmt"
	"slices"
)

// Op is the operator of an expression node.
type Op uint8

const (
	// OpFalse and OpTrue are the constants.
	OpFalse Op = iota
	OpTrue
	// OpVar is a feature: true when it is selected.
	OpVar
	// OpNot negates its one operand.
	OpNot
	// OpAnd and OpOr join two or more operands.
	OpAnd
	OpOr
	// OpImplies and OpIff relate two operands.
	OpImplies
	OpIff
)

// Expr is a Boolean expression over a model's features: a constraint's
// abstract syntax. And and Or chains are kept as one node with many
// operands, so that a long chain is a wide tree, not a deep one.
type Expr struct {
	Op Op
	// Var is the feature of an OpVar node.
	Var int
	// Args are the operands: one for OpNot, two or more for OpAnd and OpOr,
	// two for OpImplies and OpIff, none otherwise.
	Args []*Expr
}

// Const returns the constant b.
func Const(b bool) *Expr {
	if b {
		return &Expr{Op: OpTrue}
	}
	return &Expr{Op: OpFalse}
}

// Var returns the expression "feature f is selected".
func Var(f int) *Expr { return &Expr{Op: OpVar, Var: f} }

// Not returns the negation of e.
func Not(e *Expr) *Expr { return &Expr{Op: OpNot, Args: []*Expr{e}} }

// And returns the conjunction of its operands (true for none, the operand
// itself for one).
func And(es ...*Expr) *Expr { return join(OpAnd, es) }

// Or returns the disjunction of its operands (false for none, the operand
// itself for one).
func Or(es ...*Expr) *Expr { return join(OpOr, es) }

func join(op Op, es []*Expr) *Expr {
	switch len(es) {
	case 0:
		return Const(op == OpAnd)
	case 1:
		return es[0]
	}
	return &Expr{Op: op, Args: es}
}

// Implies returns "a implies b".
func Implies(a, b *Expr) *Expr { return &Expr{Op: OpImplies, Args: []*Expr{a, b}} }

// Iff returns "a if and only if b".
func Iff(a, b *Expr) *Expr { return &Expr{Op: OpIff, Args: []*Expr{a, b}} }

// Eval returns the value of e when config[i] says whether feature i is
// selected.
func (e *Expr) Eval(config []bool) bool {
	switch e.Op {
	case OpTrue:
		return true
	case OpVar:
		return config[e.Var]
	case OpNot:
		return !e.Args[0].Eval(config)
	case OpAnd:
		return !slices.ContainsFunc(e.Args, func(a *Expr) bool { return !a.Eval(config) })
	case OpOr:
		return slices.ContainsFunc(e.Args, func(a *Expr) bool { return a.Eval(config) })
	case OpImplies:
		return !e.Args[0].Eval(config) || e.Args[1].Eval(config)
	case OpIff:
		return e.Args[0].Eval(config) == e.Args[1].Eval(config)
	}
	return false
}

// arity is the least and the most operands of each operator (-1: any
// number).
var arity = [...][2]int{OpFalse: {0, 0}, OpTrue: {0, 0}, OpVar: {0, 0}, OpNot: {1, 1},
	OpAnd: {2, -1}, OpOr: {2, -1}, OpImplies: {2, 2}, OpIff: {2, 2}}

// check reports a malformed node or a feature outside 0..features-1.
func (e *Expr) check(features int) error {
	if e == nil {
		return fmt.Errorf("nil expression")
	}
	if int(e.Op) >= len(arity) {
		return fmt.Errorf("unknown operator %d", e.Op)
	}
	n := arity[e.Op]
	if len(e.Args) < n[0] || n[1] >= 0 && len(e.Args) > n[1] {
		return fmt.Errorf("operator %d with %d operands", e.Op, len(e.Args))
	}
	if e.Op == OpVar && (e.Var < 0 || e.Var >= features) {
		return fmt.Errorf("feature %d out of range", e.Var)
	}
	for _, a := range e.Args {
		if err := a.check(features); err != nil {
			return err
		}
	}
	return nil
}
