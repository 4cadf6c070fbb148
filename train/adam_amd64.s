#include "textflag.h"

// func adamKernel(n int, p, grad, mom, vel *float32, k *adamConsts)
//
// One Adam update of n weights (n a multiple of 8), eight at a time, the
// same IEEE operations in the same order as adam.update's loop:
//   m = flush(b1·m + (1-b1)·g)
//   v = flush(b2·v + ((1-b2)·g)·g)
//   p = flush(p - (a·m)/(sqrt(v)+e))
// where flush zeroes a value whose magnitude's bits are below tiny.
// No fused multiply-add: Go does not fuse these on amd64, and the kernel
// must give the loop's values bit for bit.
TEXT ·adamKernel(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ p+8(FP), DI
	MOVQ grad+16(FP), SI
	MOVQ mom+24(FP), R8
	MOVQ vel+32(FP), R9
	MOVQ k+40(FP), AX
	VBROADCASTSS 0(AX), Y8   // b1
	VBROADCASTSS 4(AX), Y9   // 1-b1
	VBROADCASTSS 8(AX), Y10  // b2
	VBROADCASTSS 12(AX), Y11 // 1-b2
	VBROADCASTSS 16(AX), Y12 // a
	VBROADCASTSS 20(AX), Y13 // e
	VPBROADCASTD 24(AX), Y14 // tiny's bits
	VPBROADCASTD 28(AX), Y15 // 0x7fffffff: a magnitude's bits
	XORQ BX, BX

loop:
	CMPQ BX, CX
	JGE  done
	VMOVUPS (SI)(BX*4), Y0 // g

	VMOVUPS (R8)(BX*4), Y1 // m
	VMULPS  Y8, Y1, Y1
	VMULPS  Y9, Y0, Y2
	VADDPS  Y2, Y1, Y1
	VPAND    Y15, Y1, Y3
	VPCMPGTD Y3, Y14, Y3 // tiny > |m|
	VPANDN   Y1, Y3, Y1
	VMOVUPS  Y1, (R8)(BX*4)

	VMOVUPS (R9)(BX*4), Y5 // v
	VMULPS  Y10, Y5, Y5
	VMULPS  Y11, Y0, Y4
	VMULPS  Y0, Y4, Y4
	VADDPS  Y4, Y5, Y5
	VPAND    Y15, Y5, Y3
	VPCMPGTD Y3, Y14, Y3
	VPANDN   Y5, Y3, Y5
	VMOVUPS  Y5, (R9)(BX*4)

	VSQRTPS Y5, Y6
	VADDPS  Y13, Y6, Y6
	VMULPS  Y12, Y1, Y7
	VDIVPS  Y6, Y7, Y7
	VMOVUPS (DI)(BX*4), Y2 // p
	VSUBPS  Y7, Y2, Y2
	VPAND    Y15, Y2, Y3
	VPCMPGTD Y3, Y14, Y3
	VPANDN   Y2, Y3, Y2
	VMOVUPS  Y2, (DI)(BX*4)

	ADDQ $8, BX
	JMP  loop

done:
	VZEROUPPER
	RET
