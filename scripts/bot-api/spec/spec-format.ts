/**
 * The machine-readable Bot API spec the fakes check against: methods and types, each field with its Telegram type
 * names and whether it is required, types with their subtypes, and `values` where the docs list the only values a
 * field may take ("always “emoji”", "must be photo", "can be one of …", the docs' enumerations). Descriptions are left
 * out. ./base-spec.ts reads Bot API 10.3 into this format from `@gramio/types`; ./bot-api-10.4-10.5.json (a `SpecDelta`)
 * brings it to 10.5; ./apply-delta.ts puts the two together (see ./README.md).
 */
export interface SpecField {
  name: string;
  /** Telegram's type names: "Integer", "String", "Boolean", "Float", "True", "InputFile", a type, "Array of …". */
  types: string[];
  required: boolean;
  values?: (string | number | boolean)[];
}

export interface SpecMethod {
  name: string;
  href: string;
  returns: string[];
  fields: SpecField[];
}

export interface SpecType {
  name: string;
  href: string;
  fields?: SpecField[];
  /** The types this one can be (InputMedia: InputMediaPhoto, InputMediaVideo…). */
  subtypes?: string[];
}

export interface Spec {
  version: string;
  release_date: string;
  changelog: string;
  methods: Record<string, SpecMethod>;
  types: Record<string, SpecType>;
}

/** A field as a delta adds it (all of it), changes it (the parts given), or removes it (`null`). */
type FieldChange = Omit<SpecField, "name"> | Partial<Omit<SpecField, "name">> | null;

/** One method's or type's change, with where it was read. */
export interface DeltaEntry {
  /** The Bot API version that made the change, or "base" where the base package differs from the docs. */
  since: string;
  /** Where it was read: pages of Telegram's documentation, or aiogram's generated docs where a page was cut. */
  source: string[];
  note?: string;
  /** A method or type that is new (or, with `replaces`, one replaced whole), without its name. */
  define?: Omit<SpecMethod, "name"> | Omit<SpecType, "name">;
  /** `define` replaces a method or type the base has. */
  replaces?: boolean;
  /** Fields added, changed or removed, by name; the others are kept. */
  fields?: Record<string, FieldChange>;
  /** A method's new result types. */
  returns?: string[];
  /** A type's new subtypes, all of them. */
  subtypes?: string[];
}

/** The changes that take a base spec of one Bot API version to a later one. */
export interface SpecDelta {
  version: string;
  release_date: string;
  changelog: string;
  /** The base it applies to: the npm package and its version, and the Bot API version it types. */
  base: { package: string; version: string; bot_api: string };
  methods: Record<string, DeltaEntry>;
  types: Record<string, DeltaEntry>;
}
