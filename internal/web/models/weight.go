package models

import (
	"unsafe"

	"github.com/nqueens/configurator/configurator/feature"
)

// The sizes of the parts of a model in memory, for Bytes.
const (
	featureSize    = int64(unsafe.Sizeof(feature.Feature{}))
	attributeSize  = int64(unsafe.Sizeof(feature.Attribute{}))
	valueSize      = int64(unsafe.Sizeof(feature.Value{}))
	groupSize      = int64(unsafe.Sizeof(feature.Group{}))
	constraintSize = int64(unsafe.Sizeof(feature.Constraint{}))
	exprSize       = int64(unsafe.Sizeof(feature.Expr{}))
	clauseSize     = int64(unsafe.Sizeof(feature.Clause{}))
	litSize        = int64(unsafe.Sizeof(feature.Lit(0)))
	intSize        = int64(unsafe.Sizeof(0))
	pointerSize    = int64(unsafe.Sizeof(uintptr(0)))
	// indexSize bounds what a model's index of names (a map from name to
	// feature) holds per feature: a slot of a string header and an int,
	// with the map's control bytes, at its lowest load (a table just
	// grown), where every slot but one in two may be empty.
	indexSize = 2 * (int64(unsafe.Sizeof("")) + intSize + 8)
	// allocSlack bounds what an allocation holds beyond what it asked
	// for (the size classes of Go's allocator round up by at most an
	// eighth, and small objects to a multiple of 8 or 16 bytes).
	allocSlack = 16
	// modelBase bounds what every model holds whatever its size: the
	// Model itself, its Grid and its index's header.
	modelBase = 1 << 10
)

// Bytes bounds from above the memory a parsed model holds: its
// features (each with its name, its attributes and its entry in the
// model's index of names), its groups, its constraints (each expression
// node and the text as written), its clauses' literals, and its name. It
// counts the capacity of every slice, not its length, and charges every
// allocation its allocator's rounding, so that what the store charges a
// model is never less than what the model holds: a model of many features
// in a tiny file (a CNF header of fifty thousand variables) costs what its
// features cost, not what its file does.
func Bytes(m *feature.Model) int64 {
	n := int64(modelBase) + alloc(int64(len(m.Name)))
	n += alloc(int64(cap(m.Features)) * featureSize)
	for i := range m.Features {
		f := &m.Features[i]
		n += alloc(int64(len(f.Name))) + alloc(int64(len(f.Pos.File))) + indexSize
		n += attributesBytes(f.Attributes)
	}
	n += alloc(int64(cap(m.Groups)) * groupSize)
	for i := range m.Groups {
		g := &m.Groups[i]
		n += alloc(int64(cap(g.Children))*intSize) + alloc(int64(len(g.Pos.File)))
	}
	n += alloc(int64(cap(m.Constraints)) * constraintSize)
	for i := range m.Constraints {
		c := &m.Constraints[i]
		n += alloc(int64(len(c.Text))) + alloc(int64(len(c.Pos.File))) + exprBytes(c.Expr)
	}
	n += alloc(int64(cap(m.Clauses)) * clauseSize)
	for i := range m.Clauses {
		n += alloc(int64(cap(m.Clauses[i].Lits)) * litSize)
	}
	return n
}

// exprBytes bounds the memory of an expression's nodes.
func exprBytes(e *feature.Expr) int64 {
	if e == nil {
		return 0
	}
	n := alloc(exprSize) + alloc(int64(cap(e.Args))*pointerSize)
	for _, a := range e.Args {
		n += exprBytes(a)
	}
	return n
}

// attributesBytes bounds the memory of a feature's attributes.
func attributesBytes(as []feature.Attribute) int64 {
	if len(as) == 0 {
		return 0
	}
	n := alloc(int64(cap(as)) * attributeSize)
	for i := range as {
		a := &as[i]
		n += alloc(int64(len(a.Key))) + alloc(int64(len(a.Pos.File))) + valueBytes(&a.Value)
	}
	return n
}

// valueBytes bounds the memory an attribute's value holds beyond itself.
func valueBytes(v *feature.Value) int64 {
	n := alloc(int64(len(v.Text)))
	if len(v.List) > 0 {
		n += alloc(int64(cap(v.List)) * valueSize)
		for i := range v.List {
			n += valueBytes(&v.List[i])
		}
	}
	return n + attributesBytes(v.Attributes)
}

// alloc bounds what an allocation of n bytes holds: n rounded up by the
// allocator, nothing for none.
func alloc(n int64) int64 {
	if n <= 0 {
		return 0
	}
	return n + n/8 + allocSlack
}
