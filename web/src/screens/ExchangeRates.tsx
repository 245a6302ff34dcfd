import { PageTitle } from '../components/ui';

export default function ExchangeRates() {
  return <PageTitle>ExchangeRates</PageTitle>;
}
