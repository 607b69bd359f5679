import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { onFreePort } from '../../../scripts/lib/processes.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

async function listenOn(port: number): Promise<Server> {
  const server = createServer();
  servers.push(server);
  server.listen(port, '127.0.0.1');
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error as Error))]);
  return server;
}

describe('onFreePort', () => {
  it('starts again on a fresh port when another process took the first one before it was bound', async () => {
    const given: number[] = [];
    const server = await onFreePort(async (port) => {
      given.push(port);
      if (given.length === 1) await listenOn(port); // someone else binds it first
      return listenOn(port);
    });
    expect(given).toHaveLength(2);
    expect(given[1]).not.toBe(given[0]);
    expect(server.address()).toMatchObject({ port: given[1] });
  });

  it('does not try again after any other failure', async () => {
    let tries = 0;
    const failing = onFreePort(async () => {
      tries++;
      throw new Error('the model did not load');
    });
    await expect(failing).rejects.toThrow('the model did not load');
    expect(tries).toBe(1);
  });
});
