#include "textflag.h"

// The element-wise kernels: o[j] = a[j] op b[j] (VV) or a[j] op s (VS) for
// j < n, n a multiple of 8, eight at a time with AVX2: the same IEEE
// operation as the Go loops of elemVV and elemVS, so the same values.
// '>' is a >= b as 1 or 0 (false where either is NaN: an ordered compare).

// ELEM is one kernel: SECOND readies the second operand (a pointer in DX,
// or the scalar broadcast into Y1), EACH loads eight of it into Y1 (or
// nothing), OP makes Y0 = Y0 op Y1. Y2 holds 1.0 in every lane for GEQ.
#define ELEM(name, SECOND, EACH, OP) \
TEXT name(SB), NOSPLIT, $0-32 \
	MOVQ n+0(FP), CX \
	MOVQ o+8(FP), DI \
	MOVQ a+16(FP), SI \
	SECOND \
	MOVL $0x3f800000, AX \
	MOVQ AX, X2 \
	VPBROADCASTD X2, Y2 \
	XORQ BX, BX \
loop: \
	CMPQ BX, CX \
	JGE  done \
	VMOVUPS (SI)(BX*4), Y0 \
	EACH \
	OP \
	VMOVUPS Y0, (DI)(BX*4) \
	ADDQ $8, BX \
	JMP  loop \
done: \
	VZEROUPPER \
	RET

#define VECTOR MOVQ b+24(FP), DX
#define VECTOR8 VMOVUPS (DX)(BX*4), Y1
#define SCALAR VBROADCASTSS s+24(FP), Y1
#define NONE
#define VV(name, OP) ELEM(name, VECTOR, VECTOR8, OP)
#define VS(name, OP) ELEM(name, SCALAR, NONE, OP)

// Y0 = Y0 op Y1 (Go's operand order is the reverse of Intel's).
#define ADD VADDPS Y1, Y0, Y0
#define MUL VMULPS Y1, Y0, Y0
// Y0 >= Y1 (_CMP_GE_OQ), then 1.0 where true.
#define GEQ VCMPPS $0x1d, Y1, Y0, Y0; VANDPS Y2, Y0, Y0

// func addVV(n int, o, a, b *float32)
VV(·addVV, ADD)
// func mulVV(n int, o, a, b *float32)
VV(·mulVV, MUL)
// func geqVV(n int, o, a, b *float32)
VV(·geqVV, GEQ)
// func addVS(n int, o, a *float32, s float32)
VS(·addVS, ADD)
// func mulVS(n int, o, a *float32, s float32)
VS(·mulVS, MUL)
// func geqVS(n int, o, a *float32, s float32)
VS(·geqVS, GEQ)
