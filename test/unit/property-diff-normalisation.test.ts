/**
 * Property-based tests of diff normalisation (fast-check, fixed seed), over the real field table of every
 * resource type (RESOURCE_TYPES): a desired value and the form in which the service returns it never differ
 * after `normaliseDesired` / `normaliseRead`, and a real change always shows as a difference.
 *
 * How the service returns a value is written here from service-api.md and behaviour-notes.md, independently
 * of src/resources: durations as integer seconds; case-insensitive values lower-cased; unordered lists in
 * another order, without duplicates, as an array or a comma-separated string; maps with keys in another order;
 * JSON-string lists as arrays of objects with keys in another order and the equivalent key filled in (a cloud
 * role given by name comes back with its id); LDIF sent base64-encoded comes back decoded; GitHub app ids as
 * integers; destinations under `connection_details`/`options`; mounts in the `sys/mounts` listing; responses
 * bare or in the envelope.
 */
import fc from 'fast-check';
import { MAX_DURATION_SECONDS } from '../../src/resources/duration';
import { RESOURCE_TYPES } from '../../src/resources/registry';
import type { Attributes, FieldSpec, ResourceType } from '../../src/resources/types';

/** Runs per resource type and property; the counts are reported by the issue's closing note. */
const RUNS = { sameValue: 150, realChange: 150 };
const SEED = 20261124;

/** One generated value of a field: as written in code, as the service returns it, and what it means. */
interface FieldCase {
  readonly desired: unknown;
  readonly server: unknown;
  /** Equal keys mean the same value to the service. */
  readonly meaning: string;
}

// ---- values, written from the service's formats ----

const plainText = fc.string({ unit: 'grapheme', maxLength: 8 });
const nonEmptyText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 });
/** A list element the comma-separated wire form carries unchanged: no comma, no surrounding blanks, not empty. */
const listElement = fc.stringMatching(/^[A-Za-z0-9_.-]([A-Za-z0-9 _.-]{0,6}[A-Za-z0-9_.-])?$/);
const lowerWord = fc.stringMatching(/^[a-z]{1,6}$/);
const upperId = fc.stringMatching(/^R[0-9]{1,4}$/);

const UNIT_SECONDS_NUMERATOR: Record<string, [bigint, bigint]> = {
  ns: [1n, 1000000000n], us: [1n, 1000000n], ms: [1n, 1000n], s: [1n, 1n], m: [60n, 1n], h: [3600n, 1n], d: [86400n, 1n],
};

/** A duration as code writes it, and the seconds the service stores (whole nanoseconds per pair, then truncated). */
const durationCase: fc.Arbitrary<FieldCase> = fc.oneof(
  fc.nat({ max: 10 ** 9 }).map((seconds) => ({ desired: seconds, server: seconds, meaning: String(seconds) })),
  fc.array(fc.record({ whole: fc.nat({ max: 100000 }), fraction: fc.stringMatching(/^[0-9]{0,3}$/), unit: fc.constantFrom(...Object.keys(UNIT_SECONDS_NUMERATOR)) }), { minLength: 1, maxLength: 3 })
    .map((pairs) => {
      let nanoseconds = 0n;
      for (const { whole, fraction, unit } of pairs) {
        const [multiplier, divisor] = UNIT_SECONDS_NUMERATOR[unit];
        const scale = 10n ** BigInt(fraction.length);
        const unitNanoseconds = (multiplier * 1000000000n) / divisor;
        nanoseconds += ((BigInt(whole) * scale + (fraction === '' ? 0n : BigInt(fraction))) * unitNanoseconds) / scale;
      }
      const seconds = Number(nanoseconds / 1000000000n);
      const text = pairs.map(({ whole, fraction, unit }) => `${whole}${fraction === '' ? '' : `.${fraction}`}${unit}`).join('');
      return { desired: text, server: seconds, meaning: String(seconds) };
    })
    // Beyond what the service can hold is refused at synth (property-synth-validation), never diffed.
    .filter((durationCase) => durationCase.server <= MAX_DURATION_SECONDS),
);

function shuffled<T>(items: readonly T[]): fc.Arbitrary<T[]> {
  return fc.shuffledSubarray([...items], { minLength: items.length, maxLength: items.length });
}

function stringListCase(field: FieldSpec): fc.Arbitrary<FieldCase> {
  return fc.array(listElement, { maxLength: 5 }).chain((list) => {
    const stored = list.map((item) => (field.caseInsensitive ? item.toLowerCase() : item));
    // An unordered list is a set to the service: it may come back in any order and without duplicates.
    const meaning = field.unordered ? JSON.stringify([...new Set(stored)].sort()) : JSON.stringify(stored);
    const served = field.unordered ? shuffled([...new Set(stored)]) : fc.constant(stored);
    return fc.tuple(served, fc.boolean()).map(([items, asCommaString]) => ({
      desired: list,
      server: asCommaString ? items.join(',') : items,
      meaning,
    }));
  });
}

function stringMapCase(): fc.Arbitrary<FieldCase> {
  return fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_-]{0,5}$/), plainText, { maxKeys: 4 }).chain((map) =>
    shuffled(Object.keys(map)).map((keys) => ({
      desired: map,
      server: Object.fromEntries(keys.map((key) => [key, map[key]])),
      meaning: JSON.stringify(Object.keys(map).sort().map((key) => [key, map[key]])),
    })),
  );
}

/** Equivalent keys the service fills in when an element names only one of them (behaviour-notes: cloud roles). */
const FILLED_KEYS: Record<string, { readonly given: string; readonly filled: string; readonly fill: (value: string) => string }[]> = {
  cloud_roles: [{ given: 'role_name', filled: 'role_id', fill: (name) => `id-${name}` }, { given: 'role_id', filled: 'role_name', fill: (id) => `name-${id}` }],
  cloud_groups: [{ given: 'group_name', filled: 'object_id', fill: (name) => `obj-${name}` }, { given: 'object_id', filled: 'group_name', fill: (id) => `group-${id}` }],
};

function objectListElement(field: FieldSpec): fc.Arbitrary<Record<string, string>> {
  if (field.api === 'cloud_roles') {
    return fc.record({ scope: fc.stringMatching(/^\/[a-z]{1,4}$/), key: fc.oneof(lowerWord.map((name) => ['role_name', name]), upperId.map((id) => ['role_id', id])) })
      .map(({ scope, key }) => ({ scope, [key[0]]: key[1] }));
  }
  if (field.api === 'cloud_groups') {
    return fc.oneof(lowerWord.map((name) => ({ group_name: name })), upperId.map((id) => ({ object_id: id })));
  }
  return fc.dictionary(fc.constantFrom(...(field.elementKeys ?? ['a', 'b'])), nonEmptyText, { minKeys: 1 });
}

function objectListCase(field: FieldSpec): fc.Arbitrary<FieldCase> {
  return fc.array(objectListElement(field), { maxLength: 4 }).chain((list) => {
    const meaningOf = (element: Record<string, string>) => JSON.stringify(Object.keys(element).sort().map((key) => [key, element[key]]));
    const meanings = list.map(meaningOf);
    const meaning = JSON.stringify(field.unordered ? [...new Set(meanings)].sort() : meanings);
    const unique = field.unordered ? list.filter((element, index) => meanings.indexOf(meaningOf(element)) === index) : list;
    const filled = unique.map((element) => {
      const result = { ...element };
      for (const rule of FILLED_KEYS[field.api] ?? []) {
        if (element[rule.given] !== undefined && element[rule.filled] === undefined) result[rule.filled] = rule.fill(element[rule.given]);
      }
      return result;
    });
    const served = field.unordered ? shuffled(filled) : fc.constant(filled);
    return fc.tuple(served, fc.boolean(), fc.boolean()).map(([elements, reverseKeys, asJsonString]) => {
      const reordered = elements.map((element) => Object.fromEntries((reverseKeys ? Object.keys(element).reverse() : Object.keys(element)).map((key) => [key, element[key]])));
      // Written as a JSON string; deployed servers read it back as an array, others may echo the string.
      return { desired: list, server: asJsonString ? JSON.stringify(reordered) : reordered, meaning };
    });
  });
}

function ldifCase(): fc.Arbitrary<FieldCase> {
  return fc.tuple(lowerWord, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }).filter((text) => text.trim() === text && !/[\r\n]/.test(text)), fc.boolean())
    .map(([cn, value, base64]) => {
      const text = `dn: cn=${cn},dc=example,dc=org\ncn: ${value}\ndescription: {{.Username}}`;
      // "May be base64-encoded"; "if LDIF was base64-encoded on write, GET returns the decoded text".
      return { desired: base64 ? Buffer.from(text, 'utf8').toString('base64') : text, server: text, meaning: text };
    });
}

const fieldCases = new Map<FieldSpec, fc.Arbitrary<FieldCase>>();

/** The arbitrary of a field's values, built once per field (building `stringMatching` arbitraries is slow). */
function fieldCase(field: FieldSpec, type: ResourceType): fc.Arbitrary<FieldCase> {
  let arbitrary = fieldCases.get(field);
  if (!arbitrary) {
    arbitrary = buildFieldCase(field, type);
    fieldCases.set(field, arbitrary);
  }
  return arbitrary;
}

function buildFieldCase(field: FieldSpec, type: ResourceType): fc.Arbitrary<FieldCase> {
  switch (field.kind) {
    case 'string': {
      // The cloud engine reads an unconfigured mount as empty strings: its two required ids are never empty.
      const text = type.type === 'cloud_secret_backend' && ['subscription_id', 'tenant_id'].includes(field.api) ? nonEmptyText
        // GitHub app ids are digits (the construct's rule); the service returns them as integers.
        : field.api === 'app_id' ? fc.stringMatching(/^[0-9]{1,8}$/) : plainText;
      return text.map((value) => {
        const stored = field.caseInsensitive ? value.toLowerCase() : value;
        return { desired: value, server: stored, meaning: field.api === 'app_id' ? String(BigInt(value)) : stored };
      });
    }
    case 'template':
      return plainText.map((value) => ({ desired: value, server: value, meaning: value }));
    case 'bool':
      return fc.boolean().map((value) => ({ desired: value, server: value, meaning: String(value) }));
    case 'int':
      return fc.nat({ max: 2 ** 31 }).map((value) => ({ desired: value, server: value, meaning: String(value) }));
    case 'duration':
      return durationCase;
    case 'stringList':
      return stringListCase(field);
    case 'stringMap':
      return stringMapCase();
    case 'objectList':
      return objectListCase(field);
    case 'ldif':
      return ldifCase();
  }
}

// ---- how the service answers a read of the object, per area ----

const DESTINATION_OPTIONS: Record<string, string> = { granularity: 'granularity_level', secret_name_template: 'secret_name_template', custom_tags: 'custom_tags' };

function serverAnswer(type: ResourceType, identity: Attributes, stored: Attributes, bare: boolean): unknown {
  let data: Record<string, unknown>;
  if (type.type === 'secrets_mount' || type.type === 'auth_mount') {
    data = { [`${String(identity.path)}/`]: { ...stored, accessor: 'acc_1234' } };
  } else if (type.type.startsWith('sync_destination_')) {
    const connection: Attributes = {};
    const options: Attributes = {};
    for (const [api, value] of Object.entries(stored)) {
      if (DESTINATION_OPTIONS[api]) options[DESTINATION_OPTIONS[api]] = value;
      else connection[api] = value;
    }
    data = { type: 'dest', name: identity.name, connection_details: connection, options };
  } else if (type.type === 'sync_github_app') {
    data = { name: identity.name, fingerprint: 'f1', private_key: '*****', ...stored, ...(stored.app_id === undefined ? {} : { app_id: Number(stored.app_id) }) };
  } else {
    data = stored;
  }
  return bare ? data : { request_id: 'r1', lease_id: '', renewable: false, lease_duration: 0, data, wrap_info: null, warnings: null, auth: null };
}

// ---- the properties ----

function comparableFields(type: ResourceType): FieldSpec[] {
  return type.fields.filter((field) => !field.identity && !field.sensitive && !field.computed && !field.writeOnly && !field.createOnly && !field.local);
}

function identityOf(type: ResourceType): Attributes {
  return Object.fromEntries(type.fields.filter((field) => field.identity).map((field) => [field.api, `id-${field.api.replace(/_/g, '-')}`]));
}

/** A value for every comparable field of a type (each field present or not). */
function specCase(type: ResourceType): fc.Arbitrary<Record<string, FieldCase>> {
  const entries = comparableFields(type).map((field) => [field.api, fieldCase(field, type)] as const);
  const required = type.type === 'cloud_secret_backend' ? ['subscription_id', 'tenant_id'] : [];
  return fc.record(Object.fromEntries(entries), { requiredKeys: required }) as fc.Arbitrary<Record<string, FieldCase>>;
}

function desiredOf(identity: Attributes, cases: Record<string, FieldCase>): Attributes {
  return { ...identity, ...Object.fromEntries(Object.entries(cases).map(([api, c]) => [api, c.desired])) };
}

function storedOf(cases: Record<string, FieldCase>): Attributes {
  return Object.fromEntries(Object.entries(cases).map(([api, c]) => [api, c.server]));
}

const TYPES = RESOURCE_TYPES.filter((type) => comparableFields(type).length > 0);

describe('diff normalisation (property, every resource type)', () => {
  test('covers every type but the association (whose only read field is the computed sync status) and every field kind', () => {
    expect(RESOURCE_TYPES.filter((type) => !TYPES.includes(type)).map((type) => type.type)).toEqual(['sync_association']);
    const kinds = new Set(TYPES.flatMap((type) => comparableFields(type).map((field) => field.kind)));
    expect([...kinds].sort()).toEqual(['bool', 'duration', 'int', 'ldif', 'objectList', 'string', 'stringList', 'stringMap', 'template']);
  });

  test.each(TYPES.map((type) => [type.type, type] as const))('%s: a desired value and its server-normalised form never differ', (_name, type) => {
    const identity = identityOf(type);
    fc.assert(
      fc.property(specCase(type), fc.boolean(), (cases, bare) => {
        const desired = desiredOf(identity, cases);
        const canonicalDesired = type.normaliseDesired(desired);
        const read = type.normaliseRead(serverAnswer(type, identity, storedOf(cases), bare), identity, desired);
        expect(read).not.toBeNull();
        for (const [api, value] of Object.entries(canonicalDesired)) expect({ [api]: read?.[api] }).toEqual({ [api]: value });
      }),
      { seed: SEED, numRuns: RUNS.sameValue },
    );
  });

  test.each(TYPES.map((type) => [type.type, type] as const))('%s: a real change of any field always shows as a difference', (_name, type) => {
    const identity = identityOf(type);
    const fields = comparableFields(type);
    const changed = fc.constantFrom(...fields).chain((field) =>
      fc.tuple(fc.constant(field), specCase(type), fieldCase(field, type), fieldCase(field, type), fc.boolean()));
    fc.assert(
      fc.property(changed, ([field, cases, before, after, bare]) => {
        fc.pre(before.meaning !== after.meaning);
        const desired = desiredOf(identity, { ...cases, [field.api]: before });
        const onServer = storedOf({ ...cases, [field.api]: after });
        const read = type.normaliseRead(serverAnswer(type, identity, onServer, bare), identity, desired);
        expect(read?.[field.api]).not.toEqual(type.normaliseDesired(desired)[field.api]);
      }),
      { seed: SEED, numRuns: RUNS.realChange },
    );
  });
});
