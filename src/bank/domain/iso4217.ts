// The current ISO 4217 alphabetic codes (profile section 9: "`currency` an ISO 4217 alphabetic code"), fixed in the
// source so that an order gets the same answer on every machine. The Bank used Node's
// `Intl.supportedValuesOf('currency')` before: the ICU list of the Node build (162 codes on Node 20.20), which lacks
// current codes (VED, CLF, the funds codes, XAU, XTS, XXX...), still holds withdrawn ones (HRK, ZWL, CUC, SLL...) and
// changes with the Node version. This module is pure data: no Intl, no I/O.
//
// What: ISO 4217 List One (Table A.1, "current currency & funds"), every alphabetic code in it: national and regional
// currencies, funds codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW, XAD), precious metals (XAU, XAG, XPD, XPT),
// XDR, XSU, XUA, the bond-market units XBA to XBD, XTS (testing) and XXX (no currency). A code is listed once however
// many entities use it. List Three (historic denominations) is not here.
//
// Where from: SIX Group's list-one.xml (SIX is the ISO 4217 maintenance agency) as converted by the public-domain
// dataset github.com/datasets/currency-codes, data/codes-all.csv at commit ab9b0ae88e8bffd4ac1c468ce9c784738d3376ba
// (2026-02-01, its monthly automated refresh): the rows with an alphabetic code and no withdrawal date, 178 codes.
// That is List One after amendment 180 (BGN withdrawn on 2026-01-01). Cross-check: a copy of List One published
// 2026-09-17 is described elsewhere as 178 codes with the same split by minor units as this one (17 with 0, 139
// with 2, 7 with 3, 2 with 4, 13 with none). No later change is known here (list checked on 2026-11-29).
//
// Codes whose status changed recently, and the decision taken:
// - HRK (Croatia, euro from 2023-01-01): withdrawn, refused.
// - SLL (Sierra Leone, redenominated as SLE): withdrawn (List Three: 2023-12), refused; SLE accepted.
// - ZWL (Zimbabwe, replaced by ZWG in 2024, amendment 177): withdrawn (2024-09), refused; ZWG accepted.
// - CUC (Cuba, amendment 178): withdrawn (2021-06; left List One in 2025), refused; CUP accepted.
// - ANG (Curacao and Sint Maarten, replaced by XCG, amendment 176): withdrawn (2025-03), refused; XCG accepted.
// - XAD (Arab Accounting Dinar of the Arab Monetary Fund, amendment 179, 2025): added, accepted.
// - BGN (Bulgaria, euro from 2026-01-01, amendment 180): withdrawn (2026-01), refused.
// - VES and VED (Venezuela): both still in List One, both accepted.
//
// To update: take the entries of the newest list-one.xml, linked from
// https://www.six-group.com/en/products-services/financial-information/market-reference-data/data-standards.html,
// change the source and date above and the count pinned by test/unit/validation.test.ts.

/** Every alphabetic code of ISO 4217 List One, in alphabetical order, each once. */
export const ISO_4217_CODES: readonly string[] = Object.freeze([
  'AED', 'AFN', 'ALL', 'AMD', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BHD', 'BIF', 'BMD', 'BND',
  'BOB', 'BOV', 'BRL', 'BSD', 'BTN', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHE', 'CHF', 'CHW', 'CLF', 'CLP', 'CNY',
  'COP', 'COU', 'CRC', 'CUP', 'CVE', 'CZK', 'DJF', 'DKK', 'DOP', 'DZD', 'EGP', 'ERN', 'ETB', 'EUR', 'FJD', 'FKP',
  'GBP', 'GEL', 'GHS', 'GIP', 'GMD', 'GNF', 'GTQ', 'GYD', 'HKD', 'HNL', 'HTG', 'HUF', 'IDR', 'ILS', 'INR', 'IQD',
  'IRR', 'ISK', 'JMD', 'JOD', 'JPY', 'KES', 'KGS', 'KHR', 'KMF', 'KPW', 'KRW', 'KWD', 'KYD', 'KZT', 'LAK', 'LBP',
  'LKR', 'LRD', 'LSL', 'LYD', 'MAD', 'MDL', 'MGA', 'MKD', 'MMK', 'MNT', 'MOP', 'MRU', 'MUR', 'MVR', 'MWK', 'MXN',
  'MXV', 'MYR', 'MZN', 'NAD', 'NGN', 'NIO', 'NOK', 'NPR', 'NZD', 'OMR', 'PAB', 'PEN', 'PGK', 'PHP', 'PKR', 'PLN',
  'PYG', 'QAR', 'RON', 'RSD', 'RUB', 'RWF', 'SAR', 'SBD', 'SCR', 'SDG', 'SEK', 'SGD', 'SHP', 'SLE', 'SOS', 'SRD',
  'SSP', 'STN', 'SVC', 'SYP', 'SZL', 'THB', 'TJS', 'TMT', 'TND', 'TOP', 'TRY', 'TTD', 'TWD', 'TZS', 'UAH', 'UGX',
  'USD', 'USN', 'UYI', 'UYU', 'UYW', 'UZS', 'VED', 'VES', 'VND', 'VUV', 'WST', 'XAD', 'XAF', 'XAG', 'XAU', 'XBA',
  'XBB', 'XBC', 'XBD', 'XCD', 'XCG', 'XDR', 'XOF', 'XPD', 'XPF', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX', 'YER', 'ZAR',
  'ZMW', 'ZWG',
]);

/** The current ISO 4217 alphabetic codes; independent of Intl, ICU and the Node version. */
export const ISO_4217: ReadonlySet<string> = new Set(ISO_4217_CODES);
