/*
 * A stand-in for bcryptprimitives.dll, for wine versions without it
 * (Debian 12's wine 8). Rust's standard library on Windows takes its random
 * bytes (HashMap seeds) from ProcessPrng there; this gives it the system's
 * RtlGenRandom (advapi32's SystemFunction036) instead. Only for running
 * tests under wine: scripts/test-windows.sh builds it and puts it beside
 * the test programs. Real Windows 8 and later have the real DLL.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  /* RtlGenRandom takes a 32-bit length: fill large requests in pieces */
  while (len > 0) {
    ULONG n = len > 0x40000000u ? 0x40000000u : (ULONG)len;
    if (!SystemFunction036(data, n)) {
      return FALSE;
    }
    data += n;
    len -= n;
  }
  return TRUE;
}
