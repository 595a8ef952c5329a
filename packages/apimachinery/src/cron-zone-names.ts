// The names Go's time.LoadLocation finds in the IANA time zone database
// (time/zoneinfo_read.go, loadLocation): every Zone and Link of tzdata 2025b,
// as listed in its tzdata.zi. Internal: cron-time-zone.ts reads it, and also
// accepts any name the platform's Intl lists as canonical, so a zone added to
// the database after 2025b is not refused for being missing here.
//
// Each line holds names separated by spaces; a line whose first word ends in
// `/` gives the area the other names of the line are in.
const table = `
CET CST6CDT Cuba EET EST EST5EDT Egypt Eire Factory GB GB-Eire GMT GMT+0 GMT-0 GMT0 Greenwich
HST Hongkong Iceland Iran Israel Jamaica Japan Kwajalein Libya MET MST MST7MDT NZ NZ-CHAT Navajo
PRC PST8PDT Poland Portugal ROC ROK Singapore Turkey UCT UTC Universal W-SU WET Zulu
Africa/ Abidjan Accra Addis_Ababa Algiers Asmara Asmera Bamako Bangui Banjul Bissau Blantyre
Africa/ Brazzaville Bujumbura Cairo Casablanca Ceuta Conakry Dakar Dar_es_Salaam Djibouti Douala
Africa/ El_Aaiun Freetown Gaborone Harare Johannesburg Juba Kampala Khartoum Kigali Kinshasa
Africa/ Lagos Libreville Lome Luanda Lubumbashi Lusaka Malabo Maputo Maseru Mbabane Mogadishu
Africa/ Monrovia Nairobi Ndjamena Niamey Nouakchott Ouagadougou Porto-Novo Sao_Tome Timbuktu
Africa/ Tripoli Tunis Windhoek
America/ Adak Anchorage Anguilla Antigua Araguaina Aruba Asuncion Atikokan Atka Bahia
America/ Bahia_Banderas Barbados Belem Belize Blanc-Sablon Boa_Vista Bogota Boise Buenos_Aires
America/ Cambridge_Bay Campo_Grande Cancun Caracas Catamarca Cayenne Cayman Chicago Chihuahua
America/ Ciudad_Juarez Coral_Harbour Cordoba Costa_Rica Coyhaique Creston Cuiaba Curacao
America/ Danmarkshavn Dawson Dawson_Creek Denver Detroit Dominica Edmonton Eirunepe El_Salvador
America/ Ensenada Fort_Nelson Fort_Wayne Fortaleza Glace_Bay Godthab Goose_Bay Grand_Turk
America/ Grenada Guadeloupe Guatemala Guayaquil Guyana Halifax Havana Hermosillo Indianapolis
America/ Inuvik Iqaluit Jamaica Jujuy Juneau Knox_IN Kralendijk La_Paz Lima Los_Angeles
America/ Louisville Lower_Princes Maceio Managua Manaus Marigot Martinique Matamoros Mazatlan
America/ Mendoza Menominee Merida Metlakatla Mexico_City Miquelon Moncton Monterrey Montevideo
America/ Montreal Montserrat Nassau New_York Nipigon Nome Noronha Nuuk Ojinaga Panama
America/ Pangnirtung Paramaribo Phoenix Port-au-Prince Port_of_Spain Porto_Acre Porto_Velho
America/ Puerto_Rico Punta_Arenas Rainy_River Rankin_Inlet Recife Regina Resolute Rio_Branco
America/ Rosario Santa_Isabel Santarem Santiago Santo_Domingo Sao_Paulo Scoresbysund Shiprock
America/ Sitka St_Barthelemy St_Johns St_Kitts St_Lucia St_Thomas St_Vincent Swift_Current
America/ Tegucigalpa Thule Thunder_Bay Tijuana Toronto Tortola Vancouver Virgin Whitehorse
America/ Winnipeg Yakutat Yellowknife
America/Argentina/ Buenos_Aires Catamarca ComodRivadavia Cordoba Jujuy La_Rioja Mendoza
America/Argentina/ Rio_Gallegos Salta San_Juan San_Luis Tucuman Ushuaia
America/Indiana/ Indianapolis Knox Marengo Petersburg Tell_City Vevay Vincennes Winamac
America/Kentucky/ Louisville Monticello
America/North_Dakota/ Beulah Center New_Salem
Antarctica/ Casey Davis DumontDUrville Macquarie Mawson McMurdo Palmer Rothera South_Pole Syowa
Antarctica/ Troll Vostok
Arctic/ Longyearbyen
Asia/ Aden Almaty Amman Anadyr Aqtau Aqtobe Ashgabat Ashkhabad Atyrau Baghdad Bahrain Baku
Asia/ Bangkok Barnaul Beirut Bishkek Brunei Calcutta Chita Choibalsan Chongqing Chungking
Asia/ Colombo Dacca Damascus Dhaka Dili Dubai Dushanbe Famagusta Gaza Harbin Hebron Ho_Chi_Minh
Asia/ Hong_Kong Hovd Irkutsk Istanbul Jakarta Jayapura Jerusalem Kabul Kamchatka Karachi Kashgar
Asia/ Kathmandu Katmandu Khandyga Kolkata Krasnoyarsk Kuala_Lumpur Kuching Kuwait Macao Macau
Asia/ Magadan Makassar Manila Muscat Nicosia Novokuznetsk Novosibirsk Omsk Oral Phnom_Penh
Asia/ Pontianak Pyongyang Qatar Qostanay Qyzylorda Rangoon Riyadh Saigon Sakhalin Samarkand
Asia/ Seoul Shanghai Singapore Srednekolymsk Taipei Tashkent Tbilisi Tehran Tel_Aviv Thimbu
Asia/ Thimphu Tokyo Tomsk Ujung_Pandang Ulaanbaatar Ulan_Bator Urumqi Ust-Nera Vientiane
Asia/ Vladivostok Yakutsk Yangon Yekaterinburg Yerevan
Atlantic/ Azores Bermuda Canary Cape_Verde Faeroe Faroe Jan_Mayen Madeira Reykjavik
Atlantic/ South_Georgia St_Helena Stanley
Australia/ ACT Adelaide Brisbane Broken_Hill Canberra Currie Darwin Eucla Hobart LHI Lindeman
Australia/ Lord_Howe Melbourne NSW North Perth Queensland South Sydney Tasmania Victoria West
Australia/ Yancowinna
Brazil/ Acre DeNoronha East West
Canada/ Atlantic Central Eastern Mountain Newfoundland Pacific Saskatchewan Yukon
Chile/ Continental EasterIsland
Etc/ GMT GMT+0 GMT+1 GMT+10 GMT+11 GMT+12 GMT+2 GMT+3 GMT+4 GMT+5 GMT+6 GMT+7 GMT+8 GMT+9 GMT-0
Etc/ GMT-1 GMT-10 GMT-11 GMT-12 GMT-13 GMT-14 GMT-2 GMT-3 GMT-4 GMT-5 GMT-6 GMT-7 GMT-8 GMT-9
Etc/ GMT0 Greenwich UCT UTC Universal Zulu
Europe/ Amsterdam Andorra Astrakhan Athens Belfast Belgrade Berlin Bratislava Brussels Bucharest
Europe/ Budapest Busingen Chisinau Copenhagen Dublin Gibraltar Guernsey Helsinki Isle_of_Man
Europe/ Istanbul Jersey Kaliningrad Kiev Kirov Kyiv Lisbon Ljubljana London Luxembourg Madrid
Europe/ Malta Mariehamn Minsk Monaco Moscow Nicosia Oslo Paris Podgorica Prague Riga Rome Samara
Europe/ San_Marino Sarajevo Saratov Simferopol Skopje Sofia Stockholm Tallinn Tirane Tiraspol
Europe/ Ulyanovsk Uzhgorod Vaduz Vatican Vienna Vilnius Volgograd Warsaw Zagreb Zaporozhye
Europe/ Zurich
Indian/ Antananarivo Chagos Christmas Cocos Comoro Kerguelen Mahe Maldives Mauritius Mayotte
Indian/ Reunion
Mexico/ BajaNorte BajaSur General
Pacific/ Apia Auckland Bougainville Chatham Chuuk Easter Efate Enderbury Fakaofo Fiji Funafuti
Pacific/ Galapagos Gambier Guadalcanal Guam Honolulu Johnston Kanton Kiritimati Kosrae Kwajalein
Pacific/ Majuro Marquesas Midway Nauru Niue Norfolk Noumea Pago_Pago Palau Pitcairn Pohnpei
Pacific/ Ponape Port_Moresby Rarotonga Saipan Samoa Tahiti Tarawa Tongatapu Truk Wake Wallis Yap
US/ Alaska Aleutian Arizona Central East-Indiana Eastern Hawaii Indiana-Starke Michigan Mountain
US/ Pacific Samoa
`;

let names: ReadonlySet<string> | undefined;

/** The zone and link names of tzdata 2025b, spelled as the database spells them. */
export function tzdataNames(): ReadonlySet<string> {
  if (names === undefined) {
    const set = new Set<string>();
    for (const line of table.split('\n')) {
      const words = line.split(' ').filter((w) => w !== '');
      const area = words[0]?.endsWith('/') ? words.shift() : '';
      for (const word of words) set.add(`${area}${word}`);
    }
    names = set;
  }
  return names;
}
