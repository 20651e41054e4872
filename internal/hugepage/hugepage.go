// Package hugepage advises the kernel to back large arrays with huge
// pages. The diagrams and the compiler's tables are read at places far
// apart: with 4 KiB pages nearly each read misses the TLB as well as the
// caches, and a kernel that grants huge pages only on advice
// (transparent_hugepage=madvise) leaves the Go heap on 4 KiB pages.
package hugepage
