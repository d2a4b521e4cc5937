// The names a QTI 3.0 package of this service uses, shared by export and import.

export const QTI_NS = 'http://www.imsglobal.org/xsd/imsqtiasi_v3p0';
export const QTI_SCHEMA = `${QTI_NS} https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqti_asiv3p0_v1p0.xsd`;
export const CP_NS = 'http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1';
export const CP_SCHEMA = `${CP_NS} https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqtiv3p0_imscpv1p2_v1p0.xsd`;
export const LOM_NS = 'http://ltsc.ieee.org/xsd/LOM';
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
/** This service's extension metadata in the manifest: what QTI has no element for, as JSON. */
export const EXTENSION_NS = 'urn:assessment-connect:qti:1';

export const TEST_TYPE = 'imsqti_test_xmlv3p0';
export const ITEM_TYPE = 'imsqti_item_xmlv3p0';

export const MATCH_CORRECT = 'https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml';
export const MAP_RESPONSE = 'https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response.xml';

/** The structural identifiers of an exported test (underscored: category ids are slugs and never clash). */
export const MAIN_PART = '_main';
export const ALL_SECTION = '_all';
export const PRACTICE_PART = '_practice';

/** What the extension says about the whole assessment. */
export interface TestExtension {
  instructions?: string;
  roles?: string[];
  readingLevel?: string;
  categoryWeights?: Record<string, number>;
  shuffleOptions?: boolean;
  /** The question ids in the authored order (the test lists them by category). */
  questionOrder?: string[];
}

/** What the extension says about one item: the Markdown it was rendered from, and what QTI cannot hold. */
export interface ItemExtension {
  type?: string;
  prompt?: string;
  maxLength?: number;
  guidance?: string;
  rubric?: unknown;
  scale?: string | string[];
  reverse?: boolean;
  practice?: boolean;
  explanation?: string;
}

/** Seconds as an ISO 8601 duration (LOM typicalLearningTime), and back. */
export const isoDuration = (seconds: number) => `PT${seconds}S`;
export function secondsOf(duration: string): number | undefined {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(duration.trim());
  if (!m || duration.trim() === 'P' || duration.trim() === 'PT') return undefined;
  const [, d, h, min, s] = m;
  return Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0);
}
