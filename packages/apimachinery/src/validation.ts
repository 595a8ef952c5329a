// Name and label validation: k8s.io/apimachinery/pkg/util/validation/validation.go
// (and pkg/api/validate/content, where newer releases moved the label checks).
// Each check returns a list of problems; an empty list means the value is valid.
// The messages follow the API server's, because users see them in kubectl.
import { utf8Length } from './strconv.js';

// The building blocks, kept exactly as Kubernetes defines them.
const qualifiedNameCharFmt = '[A-Za-z0-9]';
const qualifiedNameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${qualifiedNameCharFmt}${qualifiedNameExtCharFmt}*)?${qualifiedNameCharFmt}`;
const labelValueFmt = `(${qualifiedNameFmt})?`;
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;

const qualifiedNameRegexp = new RegExp(`^${qualifiedNameFmt}$`);
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);
const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);

const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/**
 * The longest DNS (RFC 1123) label, and so the longest label value and the
 * longest name part of a qualified name: 63.
 *
 * @category Validation
 */
export const dns1123LabelMaxLength = 63;

/**
 * The longest DNS (RFC 1123) subdomain, and so the longest object name for most
 * kinds and the longest qualified-name prefix: 253.
 *
 * @category Validation
 */
export const dns1123SubdomainMaxLength = 253;

/**
 * The longest label value: 63.
 *
 * @category Validation
 */
export const labelValueMaxLength = 63;

function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  const eg = examples.map((e) => `'${e}', `).join('or ');
  return examples.length === 0
    ? `${msg} (regex used for validation is '${fmt}')`
    : `${msg} (e.g. ${eg}regex used for validation is '${fmt}')`;
}

/**
 * Checks a DNS (RFC 1123) label: at most 63 characters of lowercase letters,
 * digits and `-`, starting and ending with a letter or digit. Namespace names
 * and many other names must be labels.
 *
 * @returns the problems found; empty when `value` is valid.
 *
 * @category Validation
 */
export function isDNS1123Label(value: string): string[] {
  // validation.go, IsDNS1123Label
  const errs: string[] = [];
  if (utf8Length(value) > dns1123LabelMaxLength) errs.push(maxLenError(dns1123LabelMaxLength));
  if (!dns1123LabelRegexp.test(value)) {
    // A valid subdomain that is not a valid label (length was checked above) has dots.
    errs.push(
      dns1123SubdomainRegexp.test(value)
        ? 'must not contain dots'
        : regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'),
    );
  }
  return errs;
}

/**
 * Checks a DNS (RFC 1123) subdomain: at most 253 characters, dot-separated
 * labels. Most object names (pods, deployments, ...) must be subdomains.
 *
 * @returns the problems found; empty when `value` is valid.
 *
 * @category Validation
 */
export function isDNS1123Subdomain(value: string): string[] {
  // validation.go, IsDNS1123Subdomain
  const errs: string[] = [];
  if (utf8Length(value) > dns1123SubdomainMaxLength) {
    errs.push(maxLenError(dns1123SubdomainMaxLength));
  }
  if (!dns1123SubdomainRegexp.test(value)) {
    errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  }
  return errs;
}

/**
 * Checks a qualified name, the form of label and annotation keys: an optional
 * DNS subdomain prefix of at most 253 characters and a `/`, then a name of at
 * most 63 characters of letters, digits, `-`, `_` and `.`, starting and ending
 * with a letter or digit (`app`, `example.com/MyName`).
 *
 * @returns the problems found; empty when `value` is valid.
 *
 * @category Validation
 */
export function isQualifiedName(value: string): string[] {
  // validation.go, IsQualifiedName (content.IsLabelKey in newer releases)
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = value;
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix === '') {
      errs.push('prefix part must be non-empty');
    } else {
      for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
    }
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name === '') {
    errs.push('name part must be non-empty');
  } else if (utf8Length(name) > dns1123LabelMaxLength) {
    errs.push(`name part ${maxLenError(dns1123LabelMaxLength)}`);
  }
  if (!qualifiedNameRegexp.test(name)) {
    errs.push(
      `name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

/**
 * Checks a label value: empty, or at most 63 characters of letters, digits,
 * `-`, `_` and `.`, starting and ending with a letter or digit.
 *
 * @returns the problems found; empty when `value` is valid.
 *
 * @category Validation
 */
export function isValidLabelValue(value: string): string[] {
  // validation.go, IsValidLabelValue (content.IsLabelValue in newer releases)
  const errs: string[] = [];
  if (utf8Length(value) > labelValueMaxLength) errs.push(maxLenError(labelValueMaxLength));
  if (!labelValueRegexp.test(value)) {
    errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}
