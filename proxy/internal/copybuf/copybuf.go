// Package copybuf is the pool of copy buffers that the box's stages and
// forwarding engines share: a connection's bytes pass through one of
// them whichever of them moves it.
//
//	Get ─→ *[]byte (32 KiB) ─→ read … write ─→ Put
package copybuf

import "sync"

// Size is a buffer's length.
const Size = 32 << 10 // io.Copy's size

var pool = sync.Pool{New: func() any { b := make([]byte, Size); return &b }}

// Get takes a buffer of Size bytes from the pool.
func Get() *[]byte { return pool.Get().(*[]byte) }

// Put gives b back; it must not be used after.
func Put(b *[]byte) { pool.Put(b) }
