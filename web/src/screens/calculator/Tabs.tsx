import { NavLink } from 'react-router';

/** CalculatorTabs switches between the calculator's two pages: position size and options strategy. */
export function CalculatorTabs() {
  return (
    <nav className="tabs" aria-label="Calculators">
      <NavLink to="/calculator" end>
        Position size
      </NavLink>
      <NavLink to="/calculator/strategy">Options strategy</NavLink>
    </nav>
  );
}
