// emu_sfpu_ops.h - host emulation of TT-Metalium (test harness): the SFPU operations the
// compute API's calls hand to the emulator's runtime (emu_sfpu), shared by both sides.
#pragma once

enum {
    EMU_EXP, EMU_RECIP, EMU_EXP2, EMU_LOG, EMU_NEG, EMU_MUL_SCALAR, EMU_ADD_SCALAR, EMU_FILL,
    EMU_GTZ, EMU_GEZ, EMU_LTZ, EMU_LEZ, EMU_EQZ, EMU_NEZ, EMU_SQRT, EMU_RSQRT, EMU_SIGMOID
};
