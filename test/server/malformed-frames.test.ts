/**
 * Malformed WebSocket frames (RFC 6455 §5.1: a client frame must be masked; §5.2: reserved opcodes; §8.1:
 * text must be UTF-8) over a raw TCP socket: the connection is cut, `harness_gym_malformed_frames_total`
 * counts it, and the log has one warn line per connection without a stack (any peer can cause these).
 */
import { createConnection } from 'node:net';
import type { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { describe, it, expect, afterEach } from 'vitest';
import { pino } from 'pino';
import { startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { connect, metric, testConfig, until } from './helpers.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Open a TCP connection and complete the WebSocket upgrade by hand. */
async function upgraded(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = createConnection({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    'GET /v1/env HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
  );
  await new Promise<void>((resolve) => {
    let head = '';
    const onData = (b: Buffer) => {
      head += b.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
  });
  return socket;
}

/** A masked frame (mask key 0: the payload is sent as is). */
function masked(opcode: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
}

const BAD_FRAMES: [string, Buffer][] = [
  ['an unmasked frame', Buffer.concat([Buffer.from([0x81, 2]), Buffer.from('hi')])],
  ['a reserved opcode', masked(0x3, Buffer.from('x'))],
  ['invalid UTF-8 in a text frame', masked(0x1, Buffer.from([0xff, 0xfe, 0xfd]))],
];

describe('malformed WebSocket frames', () => {
  it('cut the connection, are counted, and log one warn line per connection without a stack', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString('utf8').split('\n')) if (l.trim() !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    server = await startServer(testConfig({ port: 0 }), { logger: pino({ level: 'info' }, sink) });
    for (const [, frame] of BAD_FRAMES) {
      const socket = await upgraded(server.url);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write(frame);
      socket.write(frame); // never read: the first one ended the connection
      await closed;
    }
    await until(async () => (await metric(server!.app, 'harness_gym_malformed_frames_total')) === BAD_FRAMES.length);
    const reports = lines.filter((l) => l.msg === 'malformed WebSocket frame; connection cut');
    expect(reports).toHaveLength(BAD_FRAMES.length);
    for (const r of reports) {
      expect(r.level).toBe(40);
      expect(JSON.stringify(r)).not.toMatch(/stack|\n\s+at /);
      expect(typeof r.reason).toBe('string');
    }
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    // The server goes on serving.
    const c = await connect(server.url);
    await c.hello();
    expect(await c.alive()).toBe(true);
  });
});
