import { silentPcmWav } from '../../src/engines/asr/wav.js';

/** 10 ms of 16 kHz silence: a real WAV, enough for magic-byte sniffing. */
export const WAV_BYTES = silentPcmWav(10);

export const PNG_BYTES = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
