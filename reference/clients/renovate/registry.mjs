// A loopback npm registry for Renovate's lookups: it answers the packument
// (GET /<name>, the document `npm view` reads) of the packages the test
// publishes, so Renovate finds updates with no network. Only what Renovate's
// npm datasource reads is served: name, versions, dist-tags and time.

import { createServer } from 'node:http';
import { once } from 'node:events';

// startRegistry answers {url, publish(name, version, date), stop()}.
export async function startRegistry() {
  const packages = new Map(); // name -> {versions: Map(version -> date)}
  const requests = [];
  const server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, 'http://registry').pathname.slice(1));
    requests.push(name);
    const pkg = packages.get(name);
    if (req.method !== 'GET' || !pkg) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'Not found' }));
      return;
    }
    const versions = {};
    const time = {};
    let latest;
    for (const [version, date] of pkg.versions) {
      versions[version] = {
        name, version,
        dist: { tarball: `${url}/${name}/-/${name}-${version}.tgz`, shasum: '0'.repeat(40) },
      };
      time[version] = date.toISOString();
      latest = version; // published in order
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ name, 'dist-tags': { latest }, versions, time }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    requests,
    publish(name, version, date = new Date('2026-01-01T00:00:00Z')) {
      if (!packages.has(name)) packages.set(name, { versions: new Map() });
      packages.get(name).versions.set(version, date);
    },
    async stop() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
