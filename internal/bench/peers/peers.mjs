// peers.mjs: `snapwire bench`'s recorded scenarios through the encoders of two widely used
// JavaScript libraries, each run the way its users run it, every encoding decoded by the
// library's own decoder and compared with the recording.
//
//   node peers.mjs RECORDING.jsonl
//
// RECORDING is written by internal/bench/export.go (its comment gives the format): a header
// with the entity types' and non-PVS states' field widths, then per snapshot tick every
// present entity's quantised fields, every client's PVS and the non-PVS states. It prints one
// JSON object on stdout: per peer the bytes of every client-snapshot from tick `skip` on,
// the mean encode, state-update and decode time per client-snapshot, and how many
// client-snapshots were decoded and found equal to the recording. A decoder that disagrees
// with the recording ends the program with exit status 1 and the first difference on stderr.
//
// Peers:
//
//   colyseus: @colyseus/schema, Colyseus's delta state sync. One Encoder over the room
//   state: one MapSchema per entity type, keyed by entity number and marked .view() so
//   that each client's StateView holds exactly the entities of its PVS (view.add on entry,
//   view.remove on exit); a shared state is a plain field, a per-client state a .view() map
//   whose one entry is in its client's view. Each tick runs what @colyseus/core's
//   SchemaSerializer.applyPatches runs: encode() once for the shared changes, encodeView()
//   per client, discardChanges(). Its patches must arrive in order over a reliable stream
//   (Colyseus's transport is a WebSocket): measured at 0% loss only.
//
//   geckos: @geckos.io/typed-array-buffer-schema, the binary schema that
//   @geckos.io/snapshot-interpolation users encode their snapshots with. Each tick every
//   client gets a full snapshot of what it sees, shaped like the snapshot interpolation
//   library's ({id: 6 characters, time, state: {type: [entity...]}}), through Model.toBuffer,
//   and decodes it with Model.fromBuffer. No snapshot depends on another, so it needs no
//   acknowledgements and sends the same bytes at any loss rate.
//
// Field types: every field is declared with the narrowest of the peer's types that holds its
// width in bits (colyseus: boolean for 1 bit, uint8, uint16, uint32; geckos: uint8, uint16,
// uint32). Both peers have only byte-aligned types.

import { readFileSync } from 'node:fs';
import { schema, t, Encoder, Decoder, StateView } from '@colyseus/schema';
import geckosLib from '@geckos.io/typed-array-buffer-schema';

const { BufferSchema, Model, uint8, uint16, uint32, uint64, string8 } = geckosLib;

function fail(msg) {
  process.stderr.write(`peers: ${msg}\n`);
  process.exit(1);
}

function packageVersion(name) {
  const url = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}

// ---- the recording ----------------------------------------------------------------------

function loadRecording(path) {
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0);
  if (lines.length < 2) fail(`${path}: no ticks`);
  const hdr = JSON.parse(lines[0]);
  if (hdr.format !== 'snapwire-peers/1') fail(`${path}: format ${hdr.format}`);
  const types = new Map(); // type id -> {name, widths}
  for (const ty of hdr.types) types.set(ty.id, ty);
  return { hdr, types, lines: lines.slice(1) };
}

// parseTick returns the tick of a line: ents maps an entity number to {type, vals}; pvs[c]
// is client c's visible entity numbers, ascending; states[s] is the shared state's values or,
// for a per-client state, one value list per client.
function parseTick(rec, line) {
  const raw = JSON.parse(line);
  const ents = new Map();
  const e = raw.ents;
  for (let i = 0; i < e.length;) {
    const num = e[i], type = e[i + 1];
    const ty = rec.types.get(type);
    if (ty === undefined) fail(`tick at frame ${raw.frame}: entity ${num} of unknown type ${type}`);
    const n = ty.widths.length;
    ents.set(num, { type, vals: e.slice(i + 2, i + 2 + n) });
    i += 2 + n;
  }
  return { frame: raw.frame, ents, pvs: raw.pvs, states: raw.states };
}

function stateValues(rec, tick, s, c) {
  return rec.hdr.states[s].shared ? tick.states[s][0] : tick.states[s][c];
}

const fieldNames = (widths) => widths.map((_, i) => `f${i}`);

// mismatch throws the first difference between a decoded value list and the recording's.
function compareFields(what, got, want) {
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i]) throw new Error(`${what}: field ${i} decoded as ${got[i]}, recorded ${want[i]}`);
  }
}

// ---- colyseus ---------------------------------------------------------------------------

function colyseusType(w) {
  if (w === 1) return t.boolean();
  if (w <= 8) return t.uint8();
  if (w <= 16) return t.uint16();
  return t.uint32();
}

// A Schema holds at most 63 fields; a wider state (the 64-player scoreboard) is a Schema of
// nested chunks of up to 63 fields, as the package README advises ("use nested structures").
const COLYSEUS_MAX_FIELDS = 63;

// colyseusLayout declares the Schema class of a field list and returns it with the helpers
// that create an instance, assign the recorded values and read them back.
function colyseusLayout(name, widths) {
  const flat = (ws, off) => {
    const fields = {};
    ws.forEach((w, i) => { fields[`f${off + i}`] = colyseusType(w); });
    return fields;
  };
  const names = fieldNames(widths); // property names made once, not per assignment (harness overhead)
  const assign = (obj, vals, off, n) => {
    for (let i = off; i < off + n; i++) obj[names[i]] = widths[i] === 1 ? vals[i] !== 0 : vals[i];
  };
  const read = (obj, off, n, out) => {
    for (let i = off; i < off + n; i++) {
      const v = obj[names[i]];
      out.push(widths[i] === 1 ? (v ? 1 : 0) : v);
    }
  };
  if (widths.length <= COLYSEUS_MAX_FIELDS) {
    const cls = schema(flat(widths, 0), name);
    return {
      cls,
      create: () => new cls(),
      set: (obj, vals) => assign(obj, vals, 0, widths.length),
      values: (obj) => { const out = []; read(obj, 0, widths.length, out); return out; },
    };
  }
  const chunks = [];
  for (let off = 0; off < widths.length; off += COLYSEUS_MAX_FIELDS) {
    const n = Math.min(COLYSEUS_MAX_FIELDS, widths.length - off);
    chunks.push({ off, n, cls: schema(flat(widths.slice(off, off + n), off), `${name}_${chunks.length}`) });
  }
  const outer = {};
  chunks.forEach((ch, k) => { outer[`c${k}`] = ch.cls; });
  const cls = schema(outer, name);
  return {
    cls,
    create: () => {
      const obj = new cls();
      chunks.forEach((ch, k) => { obj[`c${k}`] = new ch.cls(); });
      return obj;
    },
    set: (obj, vals) => chunks.forEach((ch, k) => assign(obj[`c${k}`], vals, ch.off, ch.n)),
    values: (obj) => {
      const out = [];
      chunks.forEach((ch, k) => { if (obj[`c${k}`]) read(obj[`c${k}`], ch.off, ch.n, out); });
      return out;
    },
  };
}

function colyseusSetup(rec) {
  const { hdr } = rec;
  const typeLayouts = new Map(); // type id -> layout
  const root = {};
  for (const ty of hdr.types) {
    const l = colyseusLayout(`E_${ty.name}`, ty.widths);
    typeLayouts.set(ty.id, l);
    root[ty.name] = t.map(l.cls).view();
  }
  const stateLayouts = hdr.states.map((st) => {
    const l = colyseusLayout(`S_${st.name}`, st.widths);
    root[`state_${st.name}`] = st.shared ? l.cls : t.map(l.cls).view();
    return l;
  });
  const State = schema(root, 'ArenaState');
  return { typeLayouts, stateLayouts, State };
}

// colyseusPass runs the recording through one room: returns per client-snapshot sizes (ticks
// from skip on) and time totals. Every client's patch is decoded and compared every tick.
function colyseusPass(rec, defs, measure) {
  const { hdr, types } = rec;
  const { typeLayouts, stateLayouts, State } = defs;
  const clients = hdr.clients;
  Encoder.BUFFER_SIZE = 1 << 20;

  const state = new State();
  const perClient = []; // per state: for a per-client state, its instances by client
  hdr.states.forEach((st, s) => {
    if (st.shared) {
      state[`state_${st.name}`] = stateLayouts[s].create();
      perClient.push(null);
    } else {
      const m = state[`state_${st.name}`];
      const byClient = [];
      for (let c = 0; c < clients; c++) {
        const inst = stateLayouts[s].create();
        m.set(String(c), inst);
        byClient.push(inst);
      }
      perClient.push(byClient);
    }
  });
  const encoder = new Encoder(state);
  const views = [], decoders = [], visible = [];
  for (let c = 0; c < clients; c++) {
    const view = new StateView();
    hdr.states.forEach((st, s) => { if (!st.shared) view.add(perClient[s][c]); });
    views.push(view);
    decoders.push(new Decoder(new State()));
    visible.push(new Set());
  }
  // The clients join before the first tick: the full state, then patches (SchemaSerializer
  // getFullState).
  for (let c = 0; c < clients; c++) {
    const it = { offset: 0 };
    encoder.encodeAll(it);
    decoders[c].decode(encoder.encodeAllView(views[c], it.offset, it));
  }

  const inst = new Map(); // entity number -> {type, obj}
  const sizes = [];
  let encodeNS = 0n, trackNS = 0n, decodeNS = 0n, checked = 0;
  for (let ti = 0; ti < rec.lines.length; ti++) {
    const tick = parseTick(rec, rec.lines[ti]);
    const count = measure && ti >= hdr.skip;

    // The game's tick: entities spawn, change and go; each client's view follows its PVS.
    let start = process.hrtime.bigint();
    for (const [num, e] of tick.ents) {
      let x = inst.get(num);
      if (x !== undefined && x.type !== e.type) {
        state[types.get(x.type).name].delete(String(num));
        for (const v of visible) v.delete(num);
        x = undefined;
      }
      const l = typeLayouts.get(e.type);
      if (x === undefined) {
        x = { type: e.type, obj: l.create() };
        l.set(x.obj, e.vals);
        state[types.get(e.type).name].set(String(num), x.obj);
        inst.set(num, x);
      } else {
        l.set(x.obj, e.vals);
      }
    }
    for (const [num, x] of inst) {
      if (!tick.ents.has(num)) {
        state[types.get(x.type).name].delete(String(num));
        inst.delete(num);
        for (const v of visible) v.delete(num);
      }
    }
    hdr.states.forEach((st, s) => {
      for (let c = 0; c < (st.shared ? 1 : clients); c++) {
        const obj = st.shared ? state[`state_${st.name}`] : perClient[s][c];
        stateLayouts[s].set(obj, stateValues(rec, tick, s, c));
      }
    });
    for (let c = 0; c < clients; c++) {
      const now = new Set(tick.pvs[c]);
      for (const num of visible[c]) {
        if (!now.has(num)) views[c].remove(inst.get(num).obj);
      }
      for (const num of now) {
        if (!visible[c].has(num)) views[c].add(inst.get(num).obj);
      }
      visible[c] = now;
    }
    const track = process.hrtime.bigint() - start;

    // SchemaSerializer.applyPatches: the shared changes once, then each client's view.
    start = process.hrtime.bigint();
    const it = { offset: 0 };
    const changed = encoder.hasChanges;
    if (changed) encoder.encode(it);
    const sharedOffset = it.offset;
    let shared = process.hrtime.bigint() - start;
    const patches = [];
    let viewNS = 0n;
    for (let c = 0; c < clients; c++) {
      start = process.hrtime.bigint();
      // Without shared changes, only a view with changes of its own is sent anything.
      const patch = changed || views[c].changes.size > 0 ? encoder.encodeView(views[c], sharedOffset, it) : null;
      viewNS += process.hrtime.bigint() - start;
      patches.push(patch);
    }
    start = process.hrtime.bigint();
    encoder.discardChanges();
    shared += process.hrtime.bigint() - start;

    for (let c = 0; c < clients; c++) {
      const patch = patches[c];
      if (patch !== null) {
        start = process.hrtime.bigint();
        decoders[c].decode(patch);
        if (count) decodeNS += process.hrtime.bigint() - start;
      }
      checkColyseus(rec, defs, tick, c, decoders[c].state);
      checked++;
      if (count) sizes.push(patch === null ? 0 : patch.length);
    }
    if (count) {
      encodeNS += shared + viewNS;
      trackNS += track;
    }
  }
  for (const v of views) v.dispose();
  return { sizes, encodeNS, trackNS, decodeNS, checked };
}

function checkColyseus(rec, defs, tick, c, got) {
  const { hdr, types } = rec;
  const want = new Map(); // type name -> count
  for (const ty of hdr.types) want.set(ty.name, 0);
  for (const num of tick.pvs[c]) {
    const e = tick.ents.get(num);
    if (e === undefined) throw new Error(`frame ${tick.frame} client ${c}: PVS entity ${num} is not in the world`);
    const ty = types.get(e.type);
    want.set(ty.name, want.get(ty.name) + 1);
    const obj = got[ty.name].get(String(num));
    if (obj === undefined) throw new Error(`colyseus frame ${tick.frame} client ${c}: entity ${num} (${ty.name}) not decoded`);
    compareFields(`colyseus frame ${tick.frame} client ${c} entity ${num}`, defs.typeLayouts.get(e.type).values(obj), e.vals);
  }
  for (const ty of hdr.types) {
    if (got[ty.name].size !== want.get(ty.name)) {
      throw new Error(`colyseus frame ${tick.frame} client ${c}: ${got[ty.name].size} ${ty.name} entities decoded, ${want.get(ty.name)} visible`);
    }
  }
  hdr.states.forEach((st, s) => {
    let obj = got[`state_${st.name}`];
    if (!st.shared) {
      if (obj.size !== 1) throw new Error(`colyseus frame ${tick.frame} client ${c}: ${obj.size} ${st.name} states decoded`);
      obj = obj.get(String(c));
    }
    if (obj === undefined) throw new Error(`colyseus frame ${tick.frame} client ${c}: no ${st.name} state`);
    compareFields(`colyseus frame ${tick.frame} client ${c} state ${st.name}`, defs.stateLayouts[s].values(obj), stateValues(rec, tick, s, c));
  });
}

// ---- geckos -----------------------------------------------------------------------------

function geckosType(w) {
  if (w <= 8) return uint8;
  if (w <= 16) return uint16;
  return uint32;
}

const bytesOf = (w) => (w <= 8 ? 1 : w <= 16 ? 2 : 4);

// geckosModel declares the snapshot model. The server and the client each declare their own:
// fromBuffer annotates the schema objects it reads with (the decoder's, found by id in the
// library's registry, which the later declaration takes), and toBuffer given annotated
// objects writes a `length` string field at its default length instead. A client is another
// process, so each side here has its own objects, the decoder's declared last.
function geckosModel(rec) {
  const { hdr } = rec;
  const state = {};
  let maxEntity = 0;
  for (const ty of hdr.types) {
    const fields = { id: uint16 };
    ty.widths.forEach((w, i) => { fields[`f${i}`] = geckosType(w); });
    state[ty.name] = [BufferSchema.schema(`e_${ty.name}`, fields)];
    maxEntity = Math.max(maxEntity, 2 + ty.widths.reduce((a, w) => a + bytesOf(w), 0));
  }
  let statesBytes = 0;
  for (const st of hdr.states) {
    const fields = { id: uint16 };
    st.widths.forEach((w, i) => { fields[`f${i}`] = geckosType(w); });
    state[`state_${st.name}`] = [BufferSchema.schema(`s_${st.name}`, fields)];
    statesBytes += 5 + 2 + st.widths.reduce((a, w) => a + bytesOf(w), 0);
  }
  const snap = BufferSchema.schema('snapshot', { id: { type: string8, length: 6 }, time: uint64, state });
  // The model's buffer (KiB) sized for the largest snapshot of the recording, as its users
  // size it ("increase the max. bufferSize").
  let maxVisible = 0;
  for (const line of rec.lines) {
    for (const p of JSON.parse(line).pvs) maxVisible = Math.max(maxVisible, p.length);
  }
  const most = 5 + 6 + 8 + 5 * hdr.types.length + maxVisible * maxEntity + statesBytes;
  return new Model(snap, Math.ceil((2 * most) / 1024));
}

// geckosSnapshot builds client c's snapshot object: what the server would hand to
// SnapshotInterpolation's snapshot.create and then to the model.
function geckosSnapshot(rec, tick, ti, c) {
  const { hdr, types } = rec;
  const state = {};
  for (const ty of hdr.types) state[ty.name] = [];
  for (const num of tick.pvs[c]) {
    const e = tick.ents.get(num);
    const ty = types.get(e.type);
    const o = { id: num };
    for (let i = 0; i < e.vals.length; i++) o[`f${i}`] = e.vals[i];
    state[ty.name].push(o);
  }
  hdr.states.forEach((st, s) => {
    const o = { id: st.shared ? 0 : c };
    stateValues(rec, tick, s, c).forEach((v, i) => { o[`f${i}`] = v; });
    state[`state_${st.name}`] = [o];
  });
  return { id: ti.toString(36).padStart(6, '0').slice(-6), time: Math.round((tick.frame * 1000) / hdr.frame_rate), state };
}

function geckosPass(rec, server, client, measure) {
  const { hdr, types } = rec;
  const sizes = [];
  let encodeNS = 0n, decodeNS = 0n, checked = 0;
  for (let ti = 0; ti < rec.lines.length; ti++) {
    const tick = parseTick(rec, rec.lines[ti]);
    const count = measure && ti >= hdr.skip;
    for (let c = 0; c < hdr.clients; c++) {
      const snap = geckosSnapshot(rec, tick, ti, c);
      let start = process.hrtime.bigint();
      const buf = server.toBuffer(snap);
      const enc = process.hrtime.bigint() - start;
      start = process.hrtime.bigint();
      const got = client.fromBuffer(buf);
      const dec = process.hrtime.bigint() - start;
      checkGeckos(rec, tick, c, snap, got, types);
      checked++;
      if (count) {
        sizes.push(buf.byteLength);
        encodeNS += enc;
        decodeNS += dec;
      }
    }
  }
  return { sizes, encodeNS, trackNS: 0n, decodeNS, checked };
}

function checkGeckos(rec, tick, c, sent, got, types) {
  const { hdr } = rec;
  const where = `geckos frame ${tick.frame} client ${c}`;
  if (got.id !== sent.id || got.time !== sent.time) throw new Error(`${where}: snapshot id ${got.id} time ${got.time}, sent ${sent.id} ${sent.time}`);
  const st = got.state || {};
  const byType = new Map();
  for (const ty of hdr.types) byType.set(ty.name, []);
  for (const num of tick.pvs[c]) {
    const e = tick.ents.get(num);
    if (e === undefined) throw new Error(`frame ${tick.frame} client ${c}: PVS entity ${num} is not in the world`);
    byType.get(types.get(e.type).name).push([num, e]);
  }
  for (const ty of hdr.types) {
    const list = st[ty.name] || [];
    const want = byType.get(ty.name);
    if (list.length !== want.length) throw new Error(`${where}: ${list.length} ${ty.name} entities decoded, ${want.length} visible`);
    want.forEach(([num, e], k) => {
      if (list[k].id !== num) throw new Error(`${where}: ${ty.name} ${k} decoded as entity ${list[k].id}, sent ${num}`);
      compareFields(`${where} entity ${num}`, fieldNames(ty.widths).map((f) => list[k][f]), e.vals);
    });
  }
  hdr.states.forEach((s, si) => {
    const list = st[`state_${s.name}`] || [];
    if (list.length !== 1) throw new Error(`${where}: ${list.length} ${s.name} states decoded`);
    compareFields(`${where} state ${s.name}`, fieldNames(s.widths).map((f) => list[0][f]), stateValues(rec, tick, si, c));
  });
}

// ---- main -------------------------------------------------------------------------------

function summary(name, pkg, transport, r) {
  return {
    encoder: name, package: pkg, version: packageVersion(pkg), transport,
    sizes: r.sizes,
    encode_ns: Number(r.encodeNS) / Math.max(r.sizes.length, 1),
    update_ns: Number(r.trackNS) / Math.max(r.sizes.length, 1),
    decode_ns: Number(r.decodeNS) / Math.max(r.sizes.length, 1),
    checked: r.checked,
  };
}

function main() {
  const path = process.argv[2];
  if (!path) fail('usage: node peers.mjs RECORDING.jsonl');
  const rec = loadRecording(path);
  const out = { node: process.version, peers: [] };
  try {
    const defs = colyseusSetup(rec);
    colyseusPass(rec, defs, false); // warm-up: the same recording through another room
    out.peers.push(summary('colyseus', '@colyseus/schema', 'reliable', colyseusPass(rec, defs, true)));
    const server = geckosModel(rec);
    const client = geckosModel(rec);
    geckosPass(rec, server, client, false);
    out.peers.push(summary('geckos', '@geckos.io/typed-array-buffer-schema', 'unreliable', geckosPass(rec, server, client, true)));
  } catch (err) {
    fail(err && err.message ? err.message : String(err));
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main();
