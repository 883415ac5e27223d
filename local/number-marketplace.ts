import type { NumberType } from '../shared/domain/number-pricing.ts';

export interface SimulatedNumber {
  phone_number: string;
  country_code: string;
  number_type: NumberType;
  capabilities: string[];
}

/**
 * The local Twilio's stock of numbers for sale (AvailablePhoneNumbers): valid numbers, Polish
 * mobile and landline, US local and toll-free, UK.
 */
export function availableInventory(): Map<string, SimulatedNumber> {
  const numbers: SimulatedNumber[] = [];
  const add = (prefix: string, count: number, country: string, type: NumberType) => {
    for (let i = 0; i < count; i += 1)
      numbers.push({
        phone_number: `${prefix}${String(i).padStart(2, '0')}`,
        country_code: country,
        number_type: type,
        capabilities: ['voice', 'sms'],
      });
  };
  add('+486012345', 20, 'PL', 'mobile');
  add('+482212345', 10, 'PL', 'local');
  add('+121255501', 10, 'US', 'local');
  add('+180020000', 5, 'US', 'toll_free');
  add('+4420794600', 10, 'GB', 'local');
  return new Map(numbers.map((number) => [number.phone_number, number]));
}
